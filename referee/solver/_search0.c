/* The joker-free depth-first loop of the best-move solver, compiled: the twin of search0() in
 * referee/solver/search0.py, which is its specification and its fall-back (see
 * referee/solver/compiled.py for when this one is used). Same arguments, same answer, step for
 * step: the same options in the same order, the same dead ends, the same budget. A change to
 * search0.py must be made here too, with TWIN_SHA256 set to the new file's digest
 * (python -c "from referee.solver.compiled import twin_digest; print(twin_digest())").
 *
 * Why C: the loop is most of a joker-free solve and costs the interpreter 8,000-9,000
 * instructions a choice (referee/SOLVER.md, session 10); here it is the cells' options (asked
 * of Python once per cell and run state, as the twin does, and put in order here) and a few
 * dozen instructions a choice. Node keys fit in 64 bits (colour states in bits 0-39, group scratch 40-49, the cell
 * from bit 50). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#define TWIN_SHA256 "f23460952ea392ab4cda588aca3389f1da97083f7751601e5efeda4cb4901dec"

#define CB 10
#define CM ((1ULL << CB) - 1)
#define G0_SHIFT 40
#define CELL0 (G0_SHIFT + 10)
#define COLOURS_MASK ((1ULL << G0_SHIFT) - 1)
#define NF (17 * 16) /* group scratch values */
#define P_SHIFT 22
#define SCORE_TOP ((1LL << 30) - 1)

enum { DONE = 0, FOUND = 1, OUT_OF_BUDGET = 2, ERROR = -1 };

typedef struct {
    uint64_t code; /* as cell_codes() */
    int miss;
    int g;
    long long score;
    uint64_t nsid;
    PyObject *detail; /* borrowed: held by the cell's list */
} Opt;

/* A cell of either loop with its options in search order, asked of Python once per cell and run
 * state (and jokers left). */
typedef struct {
    uint64_t key; /* ((n * 4 + c) << CB | sid) + 1, with jokers (((n * 4 + c) << CB | sid) << 4 | jrem) + 1; 0: empty */
    PyObject *list; /* the options as Python gave them, owned (the details are borrowed from it) */
    void *opts; /* Opt (search0) or OptJ (search_jokers) */
    Py_ssize_t count;
} Cell;

typedef struct {
    Cell *slots; /* open addressing, at most half full */
    size_t cap, used;
} Cells;

/* LEAN_JG and GROW0 (module constants of referee.solver.state, never changed) as C arrays,
 * read once: converting them was most of a call's fixed cost. Read again if other lists come. */
static PyObject *known_lean_jg, *known_grow0;
static int lean_jg_c[NF];
static uint64_t grow0_c[NF][5];

static inline uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static inline size_t slot64(uint64_t k, size_t mask) {
    return (size_t)mix(k) & mask;
}

/* An open-addressing table, at most half full, from keys of type K (never 0: 0 marks an empty
 * slot) to long long values, SLOT(key, mask) its first slot: P_init, P_free, P_get (the value,
 * -1 when none is kept, as dict.get(key, -1)) and P_set (0, or -1 with MemoryError set). Where
 * DIRTY, a byte per entry ORed with each P_set's ``dirty`` (the loop with jokers marks the dead
 * ends it finds, to write them back); elsewhere ``dirty`` is ignored. The dead ends of both
 * loops and the group floors are such tables. */
#define DEFINE_TABLE(T, P, K, SLOT, DIRTY)                                                       \
    typedef struct {                                                                             \
        K *keys;                                                                                 \
        long long *vals;                                                                         \
        unsigned char *dirty; /* NULL unless DIRTY */                                            \
        size_t cap, used;                                                                        \
    } T;                                                                                         \
                                                                                                 \
    static int P##_init(T *t, size_t cap) {                                                      \
        t->keys = calloc(cap, sizeof(K));                                                        \
        t->vals = malloc(cap * sizeof(long long));                                               \
        t->dirty = (DIRTY) ? calloc(cap, 1) : NULL;                                              \
        t->cap = cap;                                                                            \
        t->used = 0;                                                                             \
        return t->keys && t->vals && (t->dirty || !(DIRTY)) ? 0 : -1;                            \
    }                                                                                            \
                                                                                                 \
    static void P##_free(T *t) {                                                                 \
        free(t->keys);                                                                           \
        free(t->vals);                                                                           \
        free(t->dirty);                                                                          \
    }                                                                                            \
                                                                                                 \
    static inline long long P##_get(const T *t, K key) {                                         \
        size_t mask = t->cap - 1, i = SLOT(key, mask);                                           \
        for (;;) {                                                                               \
            K k = t->keys[i];                                                                    \
            if (k == key) return t->vals[i];                                                     \
            if (k == 0) return -1;                                                               \
            i = (i + 1) & mask;                                                                  \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    static int P##_set(T *t, K key, long long val, unsigned char dirty) {                        \
        if (2 * (t->used + 1) > t->cap) {                                                        \
            T bigger;                                                                            \
            if (P##_init(&bigger, t->cap * 2) < 0) {                                             \
                P##_free(&bigger);                                                               \
                PyErr_NoMemory();                                                                \
                return -1;                                                                       \
            }                                                                                    \
            for (size_t j = 0; j < t->cap; j++) {                                                \
                if (t->keys[j]) {                                                                \
                    size_t m = bigger.cap - 1, i = SLOT(t->keys[j], m);                          \
                    while (bigger.keys[i]) i = (i + 1) & m;                                      \
                    bigger.keys[i] = t->keys[j];                                                 \
                    bigger.vals[i] = t->vals[j];                                                 \
                    if (DIRTY) bigger.dirty[i] = t->dirty[j];                                    \
                    bigger.used++;                                                               \
                }                                                                                \
            }                                                                                    \
            P##_free(t);                                                                         \
            *t = bigger;                                                                         \
        }                                                                                        \
        size_t mask = t->cap - 1, i = SLOT(key, mask);                                           \
        for (;;) {                                                                               \
            K k = t->keys[i];                                                                    \
            if (k == key || k == 0) {                                                            \
                if (k == 0) {                                                                    \
                    t->keys[i] = key;                                                            \
                    t->used++;                                                                   \
                }                                                                                \
                t->vals[i] = val;                                                                \
                if (DIRTY) t->dirty[i] |= dirty;                                                 \
                return 0;                                                                        \
            }                                                                                    \
            i = (i + 1) & mask;                                                                  \
        }                                                                                        \
    }

/* The joker-free loop's dead ends (the slack each was left with) and both loops' group floors. */
DEFINE_TABLE(Table, table, uint64_t, slot64, 0)

static int cells_init(Cells *t, size_t cap) {
    t->slots = calloc(cap, sizeof(Cell));
    t->cap = cap;
    t->used = 0;
    return t->slots ? 0 : -1;
}

static void cells_free(Cells *t) {
    if (t->slots) {
        for (size_t j = 0; j < t->cap; j++) {
            if (t->slots[j].key) {
                Py_XDECREF(t->slots[j].list);
                free(t->slots[j].opts);
            }
        }
    }
    free(t->slots);
}

/* The cell of ``key``: *fresh 0 when it is known, 1 when it is new (its key set, the rest zero,
 * for the caller to fill); NULL with MemoryError. */
static inline Cell *cells_slot(Cells *t, uint64_t key, int *fresh) {
    if (2 * (t->used + 1) > t->cap) {
        size_t cap = t->cap * 2;
        Cell *bigger = calloc(cap, sizeof(Cell));
        if (!bigger) {
            PyErr_NoMemory();
            return NULL;
        }
        for (size_t j = 0; j < t->cap; j++) {
            if (t->slots[j].key) {
                size_t i = slot64(t->slots[j].key, cap - 1);
                while (bigger[i].key) i = (i + 1) & (cap - 1);
                bigger[i] = t->slots[j];
            }
        }
        free(t->slots);
        t->slots = bigger;
        t->cap = cap;
    }
    size_t mask = t->cap - 1, i = slot64(key, mask);
    while (t->slots[i].key) {
        if (t->slots[i].key == key) {
            *fresh = 0;
            return &t->slots[i];
        }
        i = (i + 1) & mask;
    }
    t->slots[i].key = key;
    t->used++;
    *fresh = 1;
    return &t->slots[i];
}

typedef struct {
    unsigned char idle[4][15];
    const int *lean_jg;
    const uint64_t (*grow0)[5];
    PyObject *closed; /* the live list: run states may be registered during the search */
    PyObject *options, *hb, *group_floor, *rest_avail, *idle_detail;
    Table dead;
    Cells cells;
    Table floors; /* (f << 6 | n << 2 | c) + 1 -> the five floors, a byte each */
    long long limit, stop, left_steps;
    PyObject *details[13][4]; /* borrowed */
    PyObject *found_details[13][4];
    long long found_sc;
    int has_found;
} Ctx;

static int by_code(const void *a, const void *b) {
    uint64_t x = ((const Opt *)a)->code, y = ((const Opt *)b)->code;
    return x < y ? -1 : x > y;
}

/* The relaxed bound of run state ``sid`` in one of hb's dicts, or -1 when it has none (or a
 * negative one: no way on). */
static int bound_of(PyObject *dict, PyObject *sid, long long *h) {
    PyObject *v = PyDict_GetItemWithError(dict, sid);
    if (!v) {
        *h = -1;
        return PyErr_Occurred() ? -1 : 0;
    }
    *h = PyLong_AsLongLong(v);
    return (*h == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* A cell's options in the search order, as cell_codes() in search0.py orders them: the cell's
 * options(c, n, sid, 0) = [(nsid, g, jr, score, value, detail)], those that can finish, by
 * ((miss + 64) << 30 | (SCORE_TOP - score)) << 12 | index. */
static int fill_cell(Ctx *x, Cell *cell, int n, int c, uint64_t sid) {
    PyObject *base = PyObject_CallFunction(x->options, "iiKi", c, n, (unsigned long long)sid, 0);
    if (!base) return -1;
    cell->list = base;
    if (!PyList_Check(base)) {
        PyErr_SetString(PyExc_TypeError, "options must return a list");
        return -1;
    }
    PyObject *rows = PyList_GET_ITEM(x->hb, c); /* a list of 14 dicts, by number */
    if (!PyList_Check(rows) || PyList_GET_SIZE(rows) < 14) {
        PyErr_SetString(PyExc_TypeError, "hb[c] must be a list of 14 dicts");
        return -1;
    }
    PyObject *before = PyList_GET_ITEM(rows, n - 1), *after = PyList_GET_ITEM(rows, n);
    if (!PyDict_Check(before) || !PyDict_Check(after)) {
        PyErr_SetString(PyExc_TypeError, "hb[c][n] must be a dict");
        return -1;
    }
    Py_ssize_t size = PyList_GET_SIZE(base), count = 0;
    Opt *opts = malloc((size ? size : 1) * sizeof(Opt));
    cell->opts = opts;
    if (!opts) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *key = PyLong_FromUnsignedLongLong(sid);
    if (!key) return -1;
    long long h0;
    int bad = bound_of(before, key, &h0);
    Py_DECREF(key);
    if (bad) return -1;
    if (h0 >= 0) {
        for (Py_ssize_t i = 0; i < size; i++) {
            PyObject *o = PyList_GET_ITEM(base, i);
            if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 6) {
                PyErr_SetString(PyExc_TypeError, "an option must be a 6-tuple");
                return -1;
            }
            long long h1;
            if (bound_of(after, PyTuple_GET_ITEM(o, 0), &h1) < 0) return -1;
            if (h1 < 0) continue;
            Opt *opt = &opts[count];
            opt->nsid = (uint64_t)PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(o, 0));
            opt->g = (int)PyLong_AsLong(PyTuple_GET_ITEM(o, 1));
            opt->score = PyLong_AsLongLong(PyTuple_GET_ITEM(o, 3));
            opt->detail = PyTuple_GET_ITEM(o, 5);
            if (PyErr_Occurred()) return -1;
            if (opt->nsid > CM || opt->g < 0 || opt->g > 4 || opt->score < 0 || opt->score > SCORE_TOP || i > 4095) {
                PyErr_SetString(PyExc_ValueError, "option out of range");
                return -1;
            }
            long long miss = h0 - (opt->score >> P_SHIFT) - h1;
            if (miss + 64 < 0 || miss > 1000) {
                PyErr_SetString(PyExc_ValueError, "option's miss out of range");
                return -1;
            }
            opt->miss = (int)miss;
            opt->code = ((((uint64_t)(miss + 64)) << 30 | (uint64_t)(SCORE_TOP - opt->score)) << 12) | (uint64_t)i;
            count++;
        }
        qsort(opts, (size_t)count, sizeof(Opt), by_code);
    }
    cell->count = count;
    return 0;
}

/* The cell (n, c) at run state sid, its options filled when it is new. */
static Cell *get_cell(Ctx *x, int n, int c, uint64_t sid) {
    int fresh;
    Cell *cell = cells_slot(&x->cells, (((uint64_t)(n * 4 + c) << CB) | sid) + 1, &fresh);
    if (cell && fresh && fill_cell(x, cell, n, c, sid) < 0) return NULL;
    return cell;
}

/* The group floors at (f, n, c), packed a byte each (they are 0-99). */
static int get_floor(Table *floors, PyObject *group_floor, PyObject *rest_avail, uint64_t f, int n, int c,
                     long long *packed) {
    uint64_t fk = ((f << 6) | ((uint64_t)n << 2) | (uint64_t)c) + 1;
    long long got = table_get(floors, fk);
    if (got >= 0) {
        *packed = got;
        return 0;
    }
    PyObject *rests = PyList_GET_ITEM(rest_avail, n);
    if (!PyList_Check(rests) || PyList_GET_SIZE(rests) < 4) {
        PyErr_SetString(PyExc_TypeError, "rest_avail[n] must be a list of 4");
        return -1;
    }
    PyObject *rest = PyList_GET_ITEM(rests, c);
    PyObject *fl = PyObject_CallFunction(group_floor, "KO", (unsigned long long)f, rest);
    if (!fl) return -1;
    if (!PyTuple_Check(fl) || PyTuple_GET_SIZE(fl) != 5) {
        Py_DECREF(fl);
        PyErr_SetString(PyExc_TypeError, "group_floor must return 5 ints");
        return -1;
    }
    long long v = 0;
    for (int g = 0; g < 5; g++) {
        long e = PyLong_AsLong(PyTuple_GET_ITEM(fl, g));
        if (e < 0 || e > 255) e = 255; /* (never: 0-99) */
        v |= (long long)e << (8 * g);
    }
    Py_DECREF(fl);
    if (PyErr_Occurred()) return -1;
    if (table_set(floors, fk, v, 0) < 0) return -1;
    *packed = v;
    return 0;
}

/* Whether run state sid may end (closed: the live list, run states may be registered during a
 * search). */
static inline int is_closed(PyObject *closed, uint64_t sid) {
    return (Py_ssize_t)sid < PyList_GET_SIZE(closed) && PyList_GET_ITEM(closed, (Py_ssize_t)sid) == Py_True;
}

/* Whether the four colours' run states (bits 0-39 of a key, either loop's) may all end. */
static inline int all_closed(PyObject *closed, uint64_t colours) {
    return is_closed(closed, colours & CM) && is_closed(closed, (colours >> CB) & CM) &&
           is_closed(closed, (colours >> 2 * CB) & CM) && is_closed(closed, (colours >> 3 * CB) & CM);
}

static void keep_found(Ctx *x, long long sc) {
    x->found_sc = sc;
    memcpy(x->found_details, x->details, sizeof(x->details));
    x->has_found = 1;
}

static int rec0(Ctx *x, int n, int c, uint64_t key, long long spent, long long sc) {
    while (c < 4 && x->idle[c][n] && !((key >> (CB * c)) & CM)) {
        x->details[n - 1][c] = x->idle_detail;
        c++;
    }
    if (c == 4) {
        if (x->lean_jg[key >> G0_SHIFT]) return DONE;
        uint64_t nk = key & COLOURS_MASK;
        if (n == 13) {
            if (!all_closed(x->closed, nk)) return DONE;
            keep_found(x, sc);
            x->limit = spent - 1;
            return spent <= x->stop ? FOUND : DONE;
        }
        uint64_t node = nk | ((uint64_t)(n + 1) << CELL0);
        if (table_get(&x->dead, node) >= x->limit - spent) return DONE;
        int r = rec0(x, n + 1, 0, nk, spent, sc);
        if (r) return r;
        return table_set(&x->dead, node, x->limit - spent, 0) < 0 ? ERROR : DONE;
    }
    int sh = CB * c;
    uint64_t sid = (key >> sh) & CM;
    Cell *cell = get_cell(x, n, c, sid);
    if (!cell) return ERROR;
    uint64_t f = key >> G0_SHIFT;
    long long floor;
    if (get_floor(&x->floors, x->group_floor, x->rest_avail, f, n, c, &floor) < 0) return ERROR;
    uint64_t basek = key & ~(CM << sh) & COLOURS_MASK;
    const uint64_t *row = x->grow0[f];
    PyObject **here = x->details[n - 1];
    const Opt *opt = cell->opts, *end = opt + cell->count;
    if (c < 3) {
        uint64_t cellbits = (uint64_t)((n << 3) | (c + 1)) << CELL0;
        long long room = x->limit - spent;
        for (; opt < end; opt++) {
            int miss = opt->miss;
            if (miss > room) break;
            if ((floor >> (8 * opt->g)) & 255) continue; /* this number's groups could not be completed */
            if (--x->left_steps < 0) return OUT_OF_BUDGET;
            uint64_t nk = basek | (opt->nsid << sh) | row[opt->g];
            uint64_t node = nk | cellbits;
            if (table_get(&x->dead, node) >= room - miss) continue;
            here[c] = opt->detail;
            int r = rec0(x, n, c + 1, nk, spent + miss, sc + opt->score);
            if (r) return r;
            room = x->limit - spent;
            if (table_set(&x->dead, node, room - miss, 0) < 0) return ERROR;
        }
        return DONE;
    }
    /* The last colour of the number: each choice closes the number here (no dead end kept for
     * the choice itself: the closed number's node holds for every group scratch). */
    long long room = x->limit - spent;
    uint64_t nxt = (uint64_t)(n + 1) << CELL0;
    for (; opt < end; opt++) {
        int miss = opt->miss;
        if (miss > room) break;
        if ((floor >> (8 * opt->g)) & 255) continue;
        if (--x->left_steps < 0) return OUT_OF_BUDGET;
        uint64_t nk = basek | (opt->nsid << sh) | row[opt->g];
        if (x->lean_jg[nk >> G0_SHIFT]) continue;
        here[3] = opt->detail;
        nk &= COLOURS_MASK;
        long long spent2 = spent + miss;
        if (n == 13) {
            if (all_closed(x->closed, nk)) {
                keep_found(x, sc + opt->score);
                x->limit = spent2 - 1;
                room = x->limit - spent;
                if (spent2 <= x->stop) return FOUND;
            }
            continue;
        }
        uint64_t closing = nk | nxt;
        if (table_get(&x->dead, closing) < room - miss) {
            int r = rec0(x, n + 1, 0, nk, spent2, sc + opt->score);
            if (r) return r;
            room = x->limit - spent;
            if (table_set(&x->dead, closing, room - miss, 0) < 0) return ERROR;
        }
    }
    return DONE;
}

static void ctx_free(Ctx *x) {
    cells_free(&x->cells);
    table_free(&x->dead);
    table_free(&x->floors);
    PyMem_Free(x);
}

static int read_ints(PyObject *seq, Py_ssize_t want, const char *what) {
    if (!PyList_Check(seq) || PyList_GET_SIZE(seq) < want) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of at least %zd", what, want);
        return -1;
    }
    return 0;
}

/* Both loops' arguments: idle[c][n] (4 lists of 15), as bytes. */
static int read_idle(unsigned char out[4][15], PyObject *idle) {
    for (int c = 0; c < 4; c++) {
        PyObject *row = PyList_GET_ITEM(idle, c);
        if (read_ints(row, 15, "idle[c]") < 0) return -1;
        for (int n = 0; n < 15; n++) {
            int v = PyObject_IsTrue(PyList_GET_ITEM(row, n));
            if (v < 0) return -1;
            out[c][n] = (unsigned char)v;
        }
    }
    return 0;
}

/* Both loops' answers: the plan found, 13 lists (by number) of the 4 colours' details. */
static PyObject *details_list(PyObject *found[13][4]) {
    PyObject *rows = PyList_New(13);
    if (!rows) return NULL;
    for (int n = 0; n < 13; n++) {
        PyObject *row = PyList_New(4);
        if (!row) {
            Py_DECREF(rows);
            return NULL;
        }
        for (int c = 0; c < 4; c++) {
            Py_INCREF(found[n][c]);
            PyList_SET_ITEM(row, c, found[n][c]);
        }
        PyList_SET_ITEM(rows, n, row);
    }
    return rows;
}

static PyObject *search0(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *idle, *lean_jg, *grow0, *closed, *options, *hb, *group_floor, *rest_avail, *idle_detail;
    long long slack, stop, budget;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOLLL", &idle, &lean_jg, &grow0, &closed, &options, &hb, &group_floor,
                          &rest_avail, &idle_detail, &slack, &stop, &budget))
        return NULL;
    if (read_ints(idle, 4, "idle") < 0 || read_ints(lean_jg, NF, "lean_jg") < 0 || read_ints(grow0, NF, "grow0") < 0 ||
        read_ints(closed, 1, "closed") < 0 || read_ints(rest_avail, 14, "rest_avail") < 0 || read_ints(hb, 4, "hb") < 0)
        return NULL;
    Ctx *x = PyMem_Calloc(1, sizeof(Ctx));
    if (!x) return PyErr_NoMemory();
    x->options = options;
    x->hb = hb;
    x->group_floor = group_floor;
    x->rest_avail = rest_avail;
    x->idle_detail = idle_detail;
    x->limit = slack;
    x->stop = stop;
    x->left_steps = budget;
    PyObject *result = NULL;
    if (read_idle(x->idle, idle) < 0) goto done;
    if (lean_jg != known_lean_jg || grow0 != known_grow0) {
        Py_CLEAR(known_lean_jg);
        Py_CLEAR(known_grow0);
        for (int f = 0; f < NF; f++) {
            lean_jg_c[f] = (int)PyLong_AsLong(PyList_GET_ITEM(lean_jg, f));
            PyObject *row = PyList_GET_ITEM(grow0, f);
            if (read_ints(row, 5, "grow0[f]") < 0) goto done;
            for (int g = 0; g < 5; g++) grow0_c[f][g] = (uint64_t)PyLong_AsUnsignedLongLong(PyList_GET_ITEM(row, g));
        }
        if (PyErr_Occurred()) goto done;
        Py_INCREF(lean_jg);
        Py_INCREF(grow0);
        known_lean_jg = lean_jg;
        known_grow0 = grow0;
    }
    x->lean_jg = lean_jg_c;
    x->grow0 = (const uint64_t (*)[5])grow0_c;
    if (PyErr_Occurred()) goto done;
    x->closed = closed;
    for (int n = 0; n < 13; n++)
        for (int c = 0; c < 4; c++) x->details[n][c] = idle_detail;
    if (table_init(&x->dead, 1024) < 0 || table_init(&x->floors, 64) < 0 || cells_init(&x->cells, 256) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    int how = rec0(x, 1, 0, 0, 0, 0);
    if (how == ERROR) goto done;
    if (how == OUT_OF_BUDGET) x->left_steps = 0;
    if (!x->has_found) {
        result = Py_BuildValue("iLiO", how, x->left_steps, 0, Py_None);
        goto done;
    }
    PyObject *rows = details_list(x->found_details);
    if (!rows) goto done;
    result = Py_BuildValue("iLLN", how, x->left_steps, x->found_sc, rows);
done:
    ctx_free(x);
    return result;
}


/* ------------------------------------------------------------------------------------------
 * The loop with jokers: search_jokers() in search0.py. Its keys are the programme's full keys
 * (colour states 0-39, jokers placed 40-47, jokers in runs at this number 60-63, the group
 * scratch from bit 64, the cell from bit 76): 128-bit ints here. */

typedef unsigned __int128 u128;

#define JS_SHIFT 40
#define PEND_SHIFT 60
#define MAXG_SHIFT 64
#define S_SHIFT 68
#define CELL_SHIFT (S_SHIFT + 8)
#define KEEP_MASK ((((u128)1) << PEND_SHIFT) - 1)
#define VJS_CLEAR (~(((((u128)1) << (PEND_SHIFT - JS_SHIFT)) - 1) << JS_SHIFT) & KEEP_MASK)

static int u128_of(PyObject *v, u128 *out) {
    if (!PyLong_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "a key must be an int");
        return -1;
    }
    u128 x = 0;
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t got = PyLong_AsNativeBytes(v, &x, sizeof(x), Py_ASNATIVEBYTES_NATIVE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER | Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    if (got < 0) return -1;
    if ((size_t)got > sizeof(x)) {
        PyErr_SetString(PyExc_OverflowError, "key over 128 bits");
        return -1;
    }
#else
    if (_PyLong_AsByteArray((PyLongObject *)v, (unsigned char *)&x, sizeof(x), PY_LITTLE_ENDIAN, 0) < 0) return -1;
#endif
    *out = x;
    return 0;
}

static PyObject *long_of_u128(u128 x) {
    if (!(x >> 64)) return PyLong_FromUnsignedLongLong((unsigned long long)x);
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(&x, sizeof(x), Py_ASNATIVEBYTES_NATIVE_ENDIAN);
#else
    return _PyLong_FromByteArray((const unsigned char *)&x, sizeof(x), PY_LITTLE_ENDIAN, 0);
#endif
}

static inline size_t slot128(u128 k, size_t mask) {
    return (size_t)mix((uint64_t)k ^ mix((uint64_t)(k >> 64))) & mask;
}

/* The loop with jokers' dead ends (node keys hold their cell, never 0); dirty: set in this
 * call, written back to the programme's dict. */
DEFINE_TABLE(Table128, t128, u128, slot128, 1)

typedef struct {
    int miss;
    int g;
    int jrun;
    long long score; /* -neg */
    uint64_t nsid;
    PyObject *detail; /* borrowed: held by the cell's list */
} OptJ;

static PyObject *known_grow;
static u128 grow_c[NF][5];

typedef struct {
    unsigned char idle[4][15];
    const int *lean_jg;
    PyObject *closed, *shared, *cids, *cache, *options, *group_floor, *rest_avail, *need, *need_others, *idle_detail;
    long long jcap;
    Table128 dead;
    Table floors;
    Cells cells;
    long long limit, stop, left_steps;
    PyObject *details[13][4];
    PyObject *found_details[13][4];
    long long group_jokers[13], found_group_jokers[13];
    long long found_sc;
    int has_found;
} CtxJ;

/* A cell's options in the search order: found in shared by the cell id, else in cache, else
 * from options(c, n, sid, jrem); each (miss, neg, nsid, g, jrun, detail). */
static int fill_cell_j(CtxJ *x, Cell *cell, int n, int c, uint64_t sid, long long jrem) {
    PyObject *list = NULL;
    PyObject *row = PyList_GET_ITEM(x->cids, c);
    if (!PyList_Check(row) || PyList_GET_SIZE(row) <= n) {
        PyErr_SetString(PyExc_TypeError, "cids[c] must be a list of 15 ints");
        return -1;
    }
    long long cid = PyLong_AsLongLong(PyList_GET_ITEM(row, n));
    if (cid == -1 && PyErr_Occurred()) return -1;
    if (cid >= 0) {
        PyObject *key = PyLong_FromUnsignedLongLong((((((unsigned long long)cid << CB) | sid) << 4) | (unsigned long long)jrem));
        if (!key) return -1;
        list = PyDict_GetItemWithError(x->shared, key);
        Py_DECREF(key);
        if (!list && PyErr_Occurred()) return -1;
    }
    if (!list) {
        PyObject *key = PyLong_FromUnsignedLongLong(((((((unsigned long long)c << 4) | (unsigned long long)n) << CB) | sid) << 4) | (unsigned long long)jrem);
        if (!key) return -1;
        list = PyDict_GetItemWithError(x->cache, key);
        Py_DECREF(key);
        if (!list && PyErr_Occurred()) return -1;
    }
    if (list) {
        Py_INCREF(list);
    } else {
        list = PyObject_CallFunction(x->options, "iiKL", c, n, (unsigned long long)sid, jrem);
        if (!list) return -1;
    }
    cell->list = list;
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "a cell's options must be a list");
        return -1;
    }
    Py_ssize_t count = PyList_GET_SIZE(list);
    OptJ *opts = malloc((count ? count : 1) * sizeof(OptJ));
    cell->opts = opts;
    if (!opts) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *o = PyList_GET_ITEM(list, i);
        if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 6) {
            PyErr_SetString(PyExc_TypeError, "an option must be a 6-tuple");
            return -1;
        }
        OptJ *opt = &opts[i];
        long long miss = PyLong_AsLongLong(PyTuple_GET_ITEM(o, 0));
        opt->score = -PyLong_AsLongLong(PyTuple_GET_ITEM(o, 1));
        opt->nsid = (uint64_t)PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(o, 2));
        opt->g = (int)PyLong_AsLong(PyTuple_GET_ITEM(o, 3));
        opt->jrun = (int)PyLong_AsLong(PyTuple_GET_ITEM(o, 4));
        opt->detail = PyTuple_GET_ITEM(o, 5);
        if (PyErr_Occurred()) return -1;
        if (miss < -1000 || miss > 1000 || opt->nsid > CM || opt->g < 0 || opt->g > 4 || opt->jrun < 0 || opt->jrun > 15) {
            PyErr_SetString(PyExc_ValueError, "option out of range");
            return -1;
        }
        opt->miss = (int)miss;
    }
    cell->count = count;
    return 0;
}

/* The cell (n, c) at run state sid with jrem jokers left, its options filled when it is new. */
static Cell *get_cell_j(CtxJ *x, int n, int c, uint64_t sid, long long jrem) {
    int fresh;
    Cell *cell = cells_slot(&x->cells, (((((uint64_t)(n * 4 + c) << CB) | sid) << 4) | (uint64_t)jrem) + 1, &fresh);
    if (cell && fresh && fill_cell_j(x, cell, n, c, sid, jrem) < 0) return NULL;
    return cell;
}

/* need[d][n].get(sid) as a borrowed list, NULL with no error when there is none. */
static PyObject *need_of(PyObject *table, uint64_t sid) {
    PyObject *key = PyLong_FromUnsignedLongLong(sid);
    if (!key) return NULL;
    PyObject *v = PyDict_GetItemWithError(table, key);
    Py_DECREF(key);
    return v;
}

static int need_at(PyObject *v, long long k, long long *out) {
    if (!PyList_Check(v) || k < 0 || k >= PyList_GET_SIZE(v)) {
        PyErr_SetString(PyExc_IndexError, "joker need read past its slack");
        return -1;
    }
    *out = PyLong_AsLongLong(PyList_GET_ITEM(v, (Py_ssize_t)k));
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static PyObject *need_table(CtxJ *x, int d, int n) {
    return PyList_GET_ITEM(PyList_GET_ITEM(x->need, d), n);
}

static void keep_found_j(CtxJ *x, long long sc) {
    x->found_sc = sc;
    memcpy(x->found_details, x->details, sizeof(x->details));
    memcpy(x->found_group_jokers, x->group_jokers, sizeof(x->group_jokers));
    x->has_found = 1;
}

#define SID(k, d) ((uint64_t)((k) >> (CB * (d))) & CM)

static int recj(CtxJ *x, int n, int c, u128 key, long long spent, long long sc) {
    while (c < 4 && x->idle[c][n] && !SID(key, c)) {
        x->details[n - 1][c] = x->idle_detail;
        c++;
    }
    if (c == 4) {
        /* Close the number: its groups' jokers, then on to the next. */
        uint64_t f = (uint64_t)(key >> MAXG_SHIFT);
        if (f >= NF) {
            PyErr_SetString(PyExc_ValueError, "group scratch out of range");
            return ERROR;
        }
        long long jg = x->lean_jg[f];
        long long used = (long long)((key >> JS_SHIFT) & 255) + (long long)((key >> PEND_SHIFT) & 15) + jg;
        if (used > x->jcap) return DONE;
        u128 nk = (key & VJS_CLEAR) | ((u128)used << JS_SHIFT);
        if (n == 13) {
            if (!all_closed(x->closed, (uint64_t)nk)) return DONE;
            x->group_jokers[12] = jg;
            keep_found_j(x, sc);
            x->limit = spent - 1;
            return spent <= x->stop ? FOUND : DONE;
        }
        u128 node = nk | ((u128)((n + 1) << 3) << CELL_SHIFT);
        long long slack = x->limit - spent;
        if (t128_get(&x->dead, node) >= slack) return DONE;
        if (x->need != Py_None) {
            /* Too few jokers left for what the colours need, the slack shared out among the
             * colours as well as it can be. */
            PyObject *v[4];
            for (int d = 0; d < 4; d++) {
                v[d] = need_of(need_table(x, d, n), SID(nk, d));
                if (!v[d]) {
                    if (PyErr_Occurred()) return ERROR;
                    return t128_set(&x->dead, node, slack, 1) < 0 ? ERROR : DONE;
                }
            }
            long long least = 0, a[4], b[4], e[4];
            if (slack > 2) {
                for (int d = 0; d < 4; d++) {
                    if (need_at(v[d], slack, &a[d]) < 0) return ERROR;
                    least += a[d];
                }
            } else {
                for (int d = 0; d < 4; d++) {
                    if (need_at(v[d], 0, &a[d]) < 0) return ERROR;
                    least += a[d];
                }
                if (slack == 1) {
                    long long best = LLONG_MIN;
                    for (int d = 0; d < 4; d++) {
                        if (need_at(v[d], 1, &b[d]) < 0) return ERROR;
                        if (a[d] - b[d] > best) best = a[d] - b[d];
                    }
                    least -= best;
                } else if (slack == 2) {
                    long long g1[4], best = LLONG_MIN;
                    for (int d = 0; d < 4; d++) {
                        if (need_at(v[d], 1, &b[d]) < 0 || need_at(v[d], 2, &e[d]) < 0) return ERROR;
                        g1[d] = a[d] - b[d];
                        if (a[d] - e[d] > best) best = a[d] - e[d];
                    }
                    /* the two largest of g1 */
                    long long m1 = LLONG_MIN, m2 = LLONG_MIN;
                    for (int d = 0; d < 4; d++) {
                        if (g1[d] > m1) {
                            m2 = m1;
                            m1 = g1[d];
                        } else if (g1[d] > m2) {
                            m2 = g1[d];
                        }
                    }
                    if (m1 + m2 > best) best = m1 + m2;
                    least -= best;
                }
            }
            if (least > 2 * (x->jcap - used)) return t128_set(&x->dead, node, slack, 1) < 0 ? ERROR : DONE;
        }
        x->group_jokers[n - 1] = jg;
        int r = recj(x, n + 1, 0, nk, spent, sc);
        if (r) return r;
        return t128_set(&x->dead, node, x->limit - spent, 1) < 0 ? ERROR : DONE; /* (a plan found below lowered the limit) */
    }
    int sh = CB * c;
    uint64_t sid = SID(key, c);
    long long pend = (long long)((key >> PEND_SHIFT) & 15);
    long long jrem = x->jcap - (long long)((key >> JS_SHIFT) & 255) - pend;
    if (jrem < 0 || jrem > 15) {
        PyErr_SetString(PyExc_ValueError, "jokers left out of range");
        return ERROR;
    }
    Cell *cell = get_cell_j(x, n, c, sid, jrem);
    if (!cell) return ERROR;
    uint64_t f = (uint64_t)(key >> MAXG_SHIFT);
    if (f >= NF) {
        PyErr_SetString(PyExc_ValueError, "group scratch out of range");
        return ERROR;
    }
    long long floor;
    if (get_floor(&x->floors, x->group_floor, x->rest_avail, f, n, c, &floor) < 0) return ERROR;
    u128 basek = key & ~((u128)CM << sh) & KEEP_MASK;
    const u128 *row = grow_c[f];
    u128 cellbits = (u128)((n << 3) | (c + 1)) << CELL_SHIFT;
    PyObject **here = x->details[n - 1];
    long long room = x->limit - spent;
    const OptJ *opt = cell->opts, *end = opt + cell->count;
    PyObject *mine = NULL;
    long long others = 0;
    if (x->need != Py_None) {
        /* The other colours' joker needs from here (each given the whole slack), the colours
         * done at this number from after it. */
        others = 2 * jrem;
        PyObject *at = PyList_GET_ITEM(x->need_others, n);
        PyObject *list = PyList_Check(at) && PyList_GET_SIZE(at) == 4 ? PyList_GET_ITEM(at, c) : NULL;
        if (!list || !PyList_Check(list)) {
            PyErr_SetString(PyExc_TypeError, "need_others[n] must be a list of 4 lists");
            return ERROR;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
            PyObject *t = PyList_GET_ITEM(list, i); /* (d, table, shift) */
            if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3 || !PyDict_Check(PyTuple_GET_ITEM(t, 1))) {
                PyErr_SetString(PyExc_TypeError, "need_others[n][c] must hold (colour, dict, shift)");
                return ERROR;
            }
            long long dsh = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 2));
            if (dsh == -1 && PyErr_Occurred()) return ERROR;
            PyObject *v = need_of(PyTuple_GET_ITEM(t, 1), (uint64_t)(key >> dsh) & CM);
            if (!v) return PyErr_Occurred() ? ERROR : DONE;
            long long nv;
            if (need_at(v, room, &nv) < 0) return ERROR;
            others -= nv;
        }
        mine = need_table(x, c, n);
    }
    for (; opt < end; opt++) {
        int miss = opt->miss;
        if (miss > room) break;
        if (((floor >> (8 * opt->g)) & 255) > jrem - opt->jrun) continue; /* too few jokers for this number's groups */
        if (mine) {
            PyObject *v = need_of(mine, opt->nsid);
            if (!v) {
                if (PyErr_Occurred()) return ERROR;
                continue;
            }
            long long nv;
            if (need_at(v, room - miss, &nv) < 0) return ERROR;
            if (nv + 2 * opt->jrun > others) continue; /* this colour alone would need more jokers than are left */
        }
        if (--x->left_steps < 0) return OUT_OF_BUDGET;
        u128 nk = basek | ((u128)opt->nsid << sh) | ((u128)(pend + opt->jrun) << PEND_SHIFT) | row[opt->g];
        u128 node = nk | cellbits;
        if (t128_get(&x->dead, node) >= room - miss) continue;
        here[c] = opt->detail;
        int r = recj(x, n, c + 1, nk, spent + miss, sc + opt->score);
        if (r) return r;
        room = x->limit - spent;
        if (t128_set(&x->dead, node, room - miss, 1) < 0) return ERROR;
    }
    return DONE;
}

static void ctxj_free(CtxJ *x) {
    cells_free(&x->cells);
    t128_free(&x->dead);
    table_free(&x->floors);
    PyMem_Free(x);
}

static PyObject *search_jokers(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *idle, *lean_jg, *grow, *closed, *shared, *cids, *cache, *options, *group_floor, *rest_avail, *need,
        *need_others, *dead, *idle_detail;
    long long jcap, slack, stop, budget;
    if (!PyArg_ParseTuple(args, "OOOOLOOOOOOOOOOLLL", &idle, &lean_jg, &grow, &closed, &jcap, &shared, &cids, &cache,
                          &options, &group_floor, &rest_avail, &need, &need_others, &dead, &idle_detail, &slack, &stop,
                          &budget))
        return NULL;
    if (read_ints(idle, 4, "idle") < 0 || read_ints(lean_jg, NF, "lean_jg") < 0 || read_ints(grow, NF, "grow") < 0 ||
        read_ints(closed, 1, "closed") < 0 || read_ints(rest_avail, 14, "rest_avail") < 0 || read_ints(cids, 4, "cids") < 0)
        return NULL;
    if (!PyDict_Check(shared) || !PyDict_Check(cache) || !PyDict_Check(dead)) {
        PyErr_SetString(PyExc_TypeError, "shared, cache and dead must be dicts");
        return NULL;
    }
    if (need != Py_None) {
        if (read_ints(need, 4, "need") < 0 || read_ints(need_others, 14, "need_others") < 0) return NULL;
        for (int d = 0; d < 4; d++) {
            PyObject *rows = PyList_GET_ITEM(need, d);
            if (read_ints(rows, 14, "need[d]") < 0) return NULL;
            for (int n = 0; n < 14; n++)
                if (!PyDict_Check(PyList_GET_ITEM(rows, n))) {
                    PyErr_SetString(PyExc_TypeError, "need[d][n] must be a dict");
                    return NULL;
                }
        }
    }
    if (jcap < 0 || jcap > 15) {
        PyErr_SetString(PyExc_ValueError, "jcap out of range");
        return NULL;
    }
    CtxJ *x = PyMem_Calloc(1, sizeof(CtxJ));
    if (!x) return PyErr_NoMemory();
    x->closed = closed;
    x->shared = shared;
    x->cids = cids;
    x->cache = cache;
    x->options = options;
    x->group_floor = group_floor;
    x->rest_avail = rest_avail;
    x->need = need;
    x->need_others = need_others;
    x->idle_detail = idle_detail;
    x->jcap = jcap;
    x->limit = slack;
    x->stop = stop;
    x->left_steps = budget;
    PyObject *result = NULL;
    if (read_idle(x->idle, idle) < 0) goto done;
    if (lean_jg != known_lean_jg) {
        /* (the same list search0 reads: LEAN_JG) */
        for (int f = 0; f < NF; f++) lean_jg_c[f] = (int)PyLong_AsLong(PyList_GET_ITEM(lean_jg, f));
        if (PyErr_Occurred()) goto done;
        Py_CLEAR(known_grow0); /* (search0 reads its tables again with this LEAN_JG) */
        Py_XDECREF(known_lean_jg);
        Py_INCREF(lean_jg);
        known_lean_jg = lean_jg;
    }
    x->lean_jg = lean_jg_c;
    if (grow != known_grow) {
        Py_CLEAR(known_grow);
        for (int f = 0; f < NF; f++) {
            PyObject *row = PyList_GET_ITEM(grow, f);
            if (read_ints(row, 5, "grow[f]") < 0) goto done;
            for (int g = 0; g < 5; g++)
                if (u128_of(PyList_GET_ITEM(row, g), &grow_c[f][g]) < 0) goto done;
        }
        Py_INCREF(grow);
        known_grow = grow;
    }
    for (int n = 0; n < 13; n++)
        for (int c = 0; c < 4; c++) x->details[n][c] = idle_detail;
    if (t128_init(&x->dead, 256) < 0 || table_init(&x->floors, 64) < 0 || cells_init(&x->cells, 256) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    /* The programme's dead ends so far (an earlier search of the same programme). */
    {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(dead, &pos, &k, &v)) {
            u128 key;
            if (u128_of(k, &key) < 0) goto done;
            long long val = PyLong_AsLongLong(v);
            if (val == -1 && PyErr_Occurred()) goto done;
            if (t128_set(&x->dead, key, val, 0) < 0) goto done;
        }
    }
    int how = recj(x, 1, 0, 0, 0, 0);
    if (how == ERROR) goto done;
    if (how == OUT_OF_BUDGET) x->left_steps = 0;
    /* The dead ends found here go back to the programme's dict (later searches and the
     * tie-break's branch and bound read them). */
    for (size_t j = 0; j < x->dead.cap; j++) {
        if (x->dead.dirty[j]) {
            PyObject *k = long_of_u128(x->dead.keys[j]);
            PyObject *v = k ? PyLong_FromLongLong(x->dead.vals[j]) : NULL;
            int bad = !v || PyDict_SetItem(dead, k, v) < 0;
            Py_XDECREF(k);
            Py_XDECREF(v);
            if (bad) goto done;
        }
    }
    if (!x->has_found) {
        result = Py_BuildValue("iLiOO", how, x->left_steps, 0, Py_None, Py_None);
        goto done;
    }
    PyObject *rows = details_list(x->found_details), *jokers = rows ? PyList_New(13) : NULL;
    if (!jokers) {
        Py_XDECREF(rows);
        goto done;
    }
    for (int n = 0; n < 13; n++) {
        PyObject *j = PyLong_FromLongLong(x->found_group_jokers[n]);
        if (!j) {
            Py_DECREF(rows);
            Py_DECREF(jokers);
            goto done;
        }
        PyList_SET_ITEM(jokers, n, j);
    }
    result = Py_BuildValue("iLLNN", how, x->left_steps, x->found_sc, rows, jokers);
done:
    ctxj_free(x);
    return result;
}


/* ------------------------------------------------------------------------------------------
 * The joker needs' passes: need_tables() in search0.py. A state's ways are bit sets (bit
 * k * width + h: on leaving out at most k rack tiles with at most h halves), as many 64-bit
 * words as (most + 1) * width bits take. */

#define NEED_INF 4096 /* options.NEED_INF */
#define MAX_SIDS (1 << CB)

typedef struct {
    int sid;
    Py_ssize_t first, count; /* its steps in the colour's step arrays */
} Way;

typedef struct {
    int *nsid, *cost, *shift;
    Py_ssize_t used, cap;
} Steps;

static int steps_add(Steps *s, int nsid, int cost, int shift) {
    if (s->used == s->cap) {
        Py_ssize_t cap = s->cap ? 2 * s->cap : 256;
        int *a = realloc(s->nsid, cap * sizeof(int)), *b, *c;
        if (!a) return -1;
        s->nsid = a;
        b = realloc(s->cost, cap * sizeof(int));
        if (!b) return -1;
        s->cost = b;
        c = realloc(s->shift, cap * sizeof(int));
        if (!c) return -1;
        s->shift = c;
        s->cap = cap;
    }
    s->nsid[s->used] = nsid;
    s->cost[s->used] = cost;
    s->shift[s->used] = shift;
    s->used++;
    return 0;
}

/* Read a cell's steps ((nsid, halves, shift), ...) into s. */
static int read_steps(Steps *s, PyObject *st) {
    if (!PyTuple_Check(st)) {
        PyErr_SetString(PyExc_TypeError, "a cell's joker-need steps must be a tuple");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(st); i++) {
        PyObject *w = PyTuple_GET_ITEM(st, i);
        if (!PyTuple_Check(w) || PyTuple_GET_SIZE(w) != 3) {
            PyErr_SetString(PyExc_TypeError, "a joker-need step must be (nsid, halves, shift)");
            return -1;
        }
        long nsid = PyLong_AsLong(PyTuple_GET_ITEM(w, 0)), cost = PyLong_AsLong(PyTuple_GET_ITEM(w, 1)),
             shift = PyLong_AsLong(PyTuple_GET_ITEM(w, 2));
        if (PyErr_Occurred()) return -1;
        if (nsid < 0 || nsid >= MAX_SIDS || cost < 0 || cost > (1 << 20) || shift < 0 || shift > (1L << 30)) {
            PyErr_SetString(PyExc_ValueError, "joker-need step out of range");
            return -1;
        }
        if (steps_add(s, (int)nsid, (int)cost, (int)shift) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* dst |= src << shift, both nw words (bits pushed past the last word dropped). */
static void or_shifted(uint64_t *dst, const uint64_t *src, Py_ssize_t nw, long shift) {
    Py_ssize_t q = shift / 64;
    int r = (int)(shift % 64);
    for (Py_ssize_t i = nw - 1; i >= q; i--) {
        uint64_t v = src[i - q] << r;
        if (r && i - q - 1 >= 0) v |= src[i - q - 1] >> (64 - r);
        dst[i] |= v;
    }
}

static int is_zero(const uint64_t *m, Py_ssize_t nw) {
    for (Py_ssize_t i = 0; i < nw; i++)
        if (m[i]) return 0;
    return 1;
}

/* The (cap + 1) bits of m from bit ``at``. */
static unsigned bits_at(const uint64_t *m, Py_ssize_t nw, long at, int count) {
    Py_ssize_t q = at / 64;
    int r = (int)(at % 64);
    uint64_t v = q < nw ? m[q] >> r : 0;
    if (r && q + 1 < nw) v |= m[q + 1] << (64 - r);
    return (unsigned)(v & ((1ULL << count) - 1));
}

typedef struct {
    uint64_t *keys; /* capacity * nw words */
    PyObject **lists;  /* owned; NULL: empty */
    Py_ssize_t cap, used, nw;
} ReadCache;

static uint64_t hash_words(const uint64_t *m, Py_ssize_t nw) {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (Py_ssize_t i = 0; i < nw; i++) h = mix(h ^ m[i]) + (uint64_t)i;
    return h;
}

static int read_init(ReadCache *rc, Py_ssize_t nw) {
    rc->cap = 64;
    rc->used = 0;
    rc->nw = nw;
    rc->keys = calloc((size_t)(rc->cap * nw), sizeof(uint64_t));
    rc->lists = calloc((size_t)rc->cap, sizeof(PyObject *));
    return rc->keys && rc->lists ? 0 : -1;
}

static void read_free(ReadCache *rc) {
    if (rc->lists)
        for (Py_ssize_t i = 0; i < rc->cap; i++) Py_XDECREF(rc->lists[i]);
    free(rc->lists);
    free(rc->keys);
}

/* The list of fewest halves by tiles left out for mask m (one list per distinct mask). */
static PyObject *read_mask(ReadCache *rc, const uint64_t *m, int most, int width, int cap) {
    Py_ssize_t nw = rc->nw;
    if (2 * (rc->used + 1) > rc->cap) {
        ReadCache bigger = {0};
        bigger.cap = rc->cap * 2;
        bigger.nw = nw;
        bigger.keys = calloc((size_t)(bigger.cap * nw), sizeof(uint64_t));
        bigger.lists = calloc((size_t)bigger.cap, sizeof(PyObject *));
        if (!bigger.keys || !bigger.lists) {
            free(bigger.keys);
            free(bigger.lists);
            PyErr_NoMemory();
            return NULL;
        }
        for (Py_ssize_t j = 0; j < rc->cap; j++) {
            if (rc->lists[j]) {
                Py_ssize_t i = (Py_ssize_t)(hash_words(rc->keys + j * nw, nw) & (uint64_t)(bigger.cap - 1));
                while (bigger.lists[i]) i = (i + 1) & (bigger.cap - 1);
                memcpy(bigger.keys + i * nw, rc->keys + j * nw, (size_t)nw * sizeof(uint64_t));
                bigger.lists[i] = rc->lists[j];
                bigger.used++;
            }
        }
        free(rc->keys);
        free(rc->lists);
        *rc = bigger;
    }
    Py_ssize_t i = (Py_ssize_t)(hash_words(m, nw) & (uint64_t)(rc->cap - 1));
    while (rc->lists[i]) {
        if (!memcmp(rc->keys + i * nw, m, (size_t)nw * sizeof(uint64_t))) return rc->lists[i];
        i = (i + 1) & (rc->cap - 1);
    }
    PyObject *list = PyList_New(most + 1);
    if (!list) return NULL;
    for (int k = 0; k <= most; k++) {
        unsigned row = bits_at(m, nw, (long)k * width, cap + 1);
        PyObject *v = PyLong_FromLong(row ? __builtin_ctz(row) : NEED_INF);
        if (!v) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, v);
    }
    memcpy(rc->keys + i * nw, m, (size_t)nw * sizeof(uint64_t));
    rc->lists[i] = list;
    rc->used++;
    return list;
}

static PyObject *need_tables(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *cells, *idle, *shared, *fresh, *closed;
    long jt, most;
    if (!PyArg_ParseTuple(args, "OOOOOll", &cells, &idle, &shared, &fresh, &closed, &jt, &most)) return NULL;
    if (read_ints(cells, 4, "cells") < 0 || read_ints(idle, 4, "idle") < 0 || read_ints(closed, 1, "closed") < 0)
        return NULL;
    if (!PyDict_Check(shared)) {
        PyErr_SetString(PyExc_TypeError, "shared must be a dict");
        return NULL;
    }
    if (jt < 0 || jt > 15 || most < 0 || most > 4096) {
        PyErr_SetString(PyExc_ValueError, "jokers or most out of range");
        return NULL;
    }
    int cap = 2 * (int)jt, width = 2 * cap + 1;
    long total_bits = (most + 1) * (long)width;
    Py_ssize_t nw = (Py_ssize_t)((total_bits + 63) / 64);
    uint64_t *full = calloc((size_t)nw, sizeof(uint64_t));
    /* per number 0..13: the (sid, bits) of its level, bits in one arena per colour */
    Way *rows[14] = {0};
    Py_ssize_t row_len[14] = {0};
    uint64_t *arena = NULL;
    Py_ssize_t arena_cap = 0;
    Steps st = {0};
    ReadCache rc = {0};
    PyObject *need = NULL, *result = NULL;
    int *order = malloc(MAX_SIDS * sizeof(int)), *reach_cost = malloc(MAX_SIDS * sizeof(int));
    int *nxt_cost = malloc(MAX_SIDS * sizeof(int)), *nxt_order = malloc(MAX_SIDS * sizeof(int));
    Py_ssize_t *val_at = malloc(MAX_SIDS * sizeof(Py_ssize_t)); /* sid -> arena row of its bits, -1: none */
    if (!full || !order || !reach_cost || !nxt_cost || !nxt_order || !val_at || read_init(&rc, nw) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (long k = 0; k <= most; k++)
        for (int h = 0; h <= cap; h++) {
            long b = k * width + h;
            full[b / 64] |= 1ULL << (b % 64);
        }
    for (int sid = 0; sid < MAX_SIDS; sid++) {
        reach_cost[sid] = -1;
        nxt_cost[sid] = -1;
        val_at[sid] = -1;
    }
    need = PyList_New(4);
    if (!need) goto done;
    for (int c = 0; c < 4; c++) {
        PyObject *crow = PyList_GET_ITEM(cells, c), *irow = PyList_GET_ITEM(idle, c);
        if (read_ints(crow, 14, "cells[c]") < 0 || read_ints(irow, 14, "idle[c]") < 0) goto done;
        st.used = 0;
        /* Forward: the fewest halves to reach each state, and each cell's ways from the
         * states reaching it. */
        int nreach = 1;
        order[0] = 0;
        reach_cost[0] = 0;
        for (int n = 1; n <= 13; n++) {
            long cid = PyLong_AsLong(PyList_GET_ITEM(crow, n));
            int still = PyObject_IsTrue(PyList_GET_ITEM(irow, n));
            if ((cid == -1 && PyErr_Occurred()) || still < 0) goto done;
            free(rows[n]);
            rows[n] = malloc((size_t)(nreach ? nreach : 1) * sizeof(Way));
            if (!rows[n]) {
                PyErr_NoMemory();
                goto done;
            }
            row_len[n] = nreach;
            int nnext = 0;
            for (int i = 0; i < nreach; i++) {
                int sid = order[i], spent = reach_cost[sid];
                Way *w = &rows[n][i];
                w->sid = sid;
                w->first = st.used;
                if (still && !sid) {
                    if (steps_add(&st, 0, 0, 0) < 0) { /* IDLE_NEED */
                        PyErr_NoMemory();
                        goto done;
                    }
                } else {
                    PyObject *steps = NULL, *owned = NULL;
                    if (cid >= 0) {
                        PyObject *key = PyLong_FromLong((cid << CB) | sid);
                        if (!key) goto done;
                        steps = PyDict_GetItemWithError(shared, key);
                        Py_DECREF(key);
                        if (!steps && PyErr_Occurred()) goto done;
                    }
                    if (!steps) {
                        steps = owned = PyObject_CallFunction(fresh, "iii", c, n, sid);
                        if (!steps) goto done;
                    }
                    int bad = read_steps(&st, steps);
                    Py_XDECREF(owned);
                    if (bad) goto done;
                }
                w->count = st.used - w->first;
                for (Py_ssize_t j = w->first; j < st.used; j++) {
                    int nsid = st.nsid[j], cost = st.cost[j] + spent;
                    if (cost <= cap) {
                        int was = nxt_cost[nsid];
                        if (was < 0) {
                            nxt_order[nnext++] = nsid;
                            nxt_cost[nsid] = cost;
                        } else if (was > cost) {
                            nxt_cost[nsid] = cost;
                        }
                    }
                }
            }
            for (int i = 0; i < nreach; i++) reach_cost[order[i]] = -1;
            for (int i = 0; i < nnext; i++) {
                order[i] = nxt_order[i];
                reach_cost[order[i]] = nxt_cost[order[i]];
                nxt_cost[order[i]] = -1;
            }
            nreach = nnext;
        }
        /* Backward: level 13 is the states after number 13 (full where every run may end),
         * level n - 1 from level n through cell n's ways. */
        Py_ssize_t need_rows = 0;
        for (int n = 1; n <= 13; n++) need_rows += row_len[n];
        need_rows += nreach;
        if (need_rows > arena_cap) {
            free(arena);
            arena_cap = need_rows;
            arena = malloc((size_t)(arena_cap * nw) * sizeof(uint64_t));
            if (!arena) {
                arena_cap = 0;
                PyErr_NoMemory();
                goto done;
            }
        }
        Py_ssize_t used_rows = 0;
        Way *level_ways[14];
        Py_ssize_t level_len[14], level_first[14];
        Way *last = malloc((size_t)(nreach ? nreach : 1) * sizeof(Way));
        if (!last) {
            PyErr_NoMemory();
            goto done;
        }
        level_first[13] = used_rows;
        for (int i = 0; i < nreach; i++) {
            int sid = order[i];
            uint64_t *m = arena + used_rows * nw;
            Py_ssize_t sz = PyList_GET_SIZE(closed);
            int is_closed = sid < sz && PyList_GET_ITEM(closed, sid) == Py_True;
            if (is_closed)
                memcpy(m, full, (size_t)nw * sizeof(uint64_t));
            else
                memset(m, 0, (size_t)nw * sizeof(uint64_t));
            last[i].sid = sid;
            val_at[sid] = used_rows;
            used_rows++;
            reach_cost[sid] = -1;
        }
        level_ways[13] = last;
        level_len[13] = nreach;
        for (int n = 13; n >= 1; n--) {
            level_first[n - 1] = used_rows;
            for (Py_ssize_t i = 0; i < row_len[n]; i++) {
                Way *w = &rows[n][i];
                uint64_t *m = arena + used_rows++ * nw;
                memset(m, 0, (size_t)nw * sizeof(uint64_t));
                for (Py_ssize_t j = w->first; j < w->first + w->count; j++) {
                    Py_ssize_t at = val_at[st.nsid[j]];
                    if (at >= 0 && !is_zero(arena + at * nw, nw)) or_shifted(m, arena + at * nw, nw, st.shift[j]);
                }
                for (Py_ssize_t q = 0; q < nw; q++) m[q] &= full[q];
            }
            /* the states of level n forgotten, those of level n - 1 known */
            for (Py_ssize_t i = 0; i < level_len[n]; i++) val_at[level_ways[n][i].sid] = -1;
            for (Py_ssize_t i = 0; i < row_len[n]; i++) val_at[rows[n][i].sid] = level_first[n - 1] + i;
            level_ways[n - 1] = rows[n];
            level_len[n - 1] = row_len[n];
        }
        for (Py_ssize_t i = 0; i < level_len[0]; i++) val_at[level_ways[0][i].sid] = -1;
        /* As lists by tiles left out: need[c][n] = {sid: list}. */
        PyObject *levels = PyList_New(14);
        if (!levels) {
            free(last);
            goto done;
        }
        PyList_SET_ITEM(need, c, levels);
        for (int n = 0; n <= 13; n++) {
            PyObject *out = PyDict_New();
            if (!out) {
                free(last);
                goto done;
            }
            PyList_SET_ITEM(levels, n, out);
            for (Py_ssize_t i = 0; i < level_len[n]; i++) {
                PyObject *list = read_mask(&rc, arena + (level_first[n] + i) * nw, (int)most, width, cap);
                PyObject *key = list ? PyLong_FromLong(level_ways[n][i].sid) : NULL;
                int bad = !key || PyDict_SetItem(out, key, list) < 0;
                Py_XDECREF(key);
                if (bad) {
                    free(last);
                    goto done;
                }
            }
        }
        free(last);
    }
    result = need;
    need = NULL;
done:
    Py_XDECREF(need);
    for (int n = 0; n < 14; n++) free(rows[n]);
    free(arena);
    free(st.nsid);
    free(st.cost);
    free(st.shift);
    read_free(&rc);
    free(full);
    free(order);
    free(reach_cost);
    free(nxt_cost);
    free(nxt_order);
    free(val_at);
    return result;
}

static PyMethodDef methods[] = {
    {"search0", search0, METH_VARARGS,
     "search0(idle, lean_jg, grow0, closed, options, hb, group_floor, rest_avail, idle_detail, slack, stop, budget)\n"
     "The joker-free depth-first loop: referee.solver.search0.search0, compiled (same arguments and answer)."},
    {"search_jokers", search_jokers, METH_VARARGS,
     "search_jokers(idle, lean_jg, grow, closed, jcap, shared, cids, cache, options, group_floor, rest_avail, need,\n"
     "              need_others, dead, idle_detail, slack, stop, budget)\n"
     "The depth-first loop with jokers: referee.solver.search0.search_jokers, compiled (same arguments and answer)."},
    {"need_tables", need_tables, METH_VARARGS,
     "need_tables(cells, idle, shared, fresh, closed, jt, most)\n"
     "The joker needs' passes: referee.solver.search0.need_tables, compiled (same arguments and answer)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_search0",
    "The joker-free depth-first loop of the best-move solver, compiled (see referee/solver/search0.py).", -1,
    methods,
};

/* The constants of referee.solver.state and .options this file was written for, which
 * referee/solver/compiled.py compares with theirs before using it. */
static PyObject *constants(void) {
    PyObject *keep = long_of_u128(KEEP_MASK), *vjs = keep ? long_of_u128(VJS_CLEAR) : NULL;
    PyObject *d = vjs ? Py_BuildValue("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:O,s:O,s:((iii))}", "CB", CB, "G0_SHIFT",
                                      G0_SHIFT, "P_SHIFT", P_SHIFT, "JS_SHIFT", JS_SHIFT, "PEND_SHIFT", PEND_SHIFT,
                                      "MAXG_SHIFT", MAXG_SHIFT, "S_SHIFT", S_SHIFT, "NEED_INF", NEED_INF,
                                      "GROUP_SCRATCH", NF, "KEEP_MASK", keep, "VJS_CLEAR", vjs, "IDLE_NEED", 0, 0, 0)
                      : NULL;
    Py_XDECREF(keep);
    Py_XDECREF(vjs);
    return d;
}

PyMODINIT_FUNC PyInit__search0(void) {
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyObject *c = constants();
    if (!c || PyModule_AddStringConstant(m, "TWIN_SHA256", TWIN_SHA256) < 0 || PyModule_AddObject(m, "CONSTANTS", c) < 0) {
        Py_XDECREF(c);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
