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
#include <string.h>

#define TWIN_SHA256 "06ba88168089f1dfb810c4465734575959b909a802acbf69474591d68d561973"

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
    PyObject *detail; /* borrowed: held by the cell's (codes, base) */
} Opt;

typedef struct {
    uint64_t key; /* ((n * 4 + c) << CB | sid) + 1; 0: empty */
    PyObject *base; /* options(c, n, sid, 0), owned */
    Opt *opts;
    Py_ssize_t count;
} Cell;

typedef struct {
    uint64_t *keys; /* 0: empty */
    long long *vals;
    size_t cap, used;
} Table;

/* LEAN_JG and GROW0 (module constants of referee.solver.state, never changed) as C arrays,
 * read once: converting them was most of a call's fixed cost. Read again if other lists come. */
static PyObject *known_lean_jg, *known_grow0;
static int lean_jg_c[NF];
static uint64_t grow0_c[NF][5];

typedef struct {
    unsigned char idle[4][15];
    const int *lean_jg;
    const uint64_t (*grow0)[5];
    PyObject *closed; /* the live list: run states may be registered during the search */
    PyObject *options, *hb, *group_floor, *rest_avail, *idle_detail;
    Table dead;
    Cell *cells;
    size_t ccap, cused;
    Table floors; /* (f << 6 | n << 2 | c) + 1 -> the five floors, a byte each */
    long long limit, stop, left_steps;
    PyObject *details[13][4]; /* borrowed */
    PyObject *found_details[13][4];
    long long found_sc;
    int has_found;
} Ctx;

static inline uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static int table_init(Table *t, size_t cap) {
    t->keys = calloc(cap, sizeof(uint64_t));
    t->vals = malloc(cap * sizeof(long long));
    t->cap = cap;
    t->used = 0;
    return t->keys && t->vals ? 0 : -1;
}

/* The slack a dead end was left with, -1 when none is kept (as dict.get(node, -1)). */
static inline long long dead_get(const Table *t, uint64_t key) {
    size_t mask = t->cap - 1, i = (size_t)mix(key) & mask;
    for (;;) {
        uint64_t k = t->keys[i];
        if (k == key) return t->vals[i];
        if (k == 0) return -1;
        i = (i + 1) & mask;
    }
}

static int dead_set(Table *t, uint64_t key, long long val) {
    if (2 * (t->used + 1) > t->cap) {
        Table bigger;
        if (table_init(&bigger, t->cap * 2) < 0) return -1;
        for (size_t j = 0; j < t->cap; j++) {
            if (t->keys[j]) {
                size_t m = bigger.cap - 1, i = (size_t)mix(t->keys[j]) & m;
                while (bigger.keys[i]) i = (i + 1) & m;
                bigger.keys[i] = t->keys[j];
                bigger.vals[i] = t->vals[j];
                bigger.used++;
            }
        }
        free(t->keys);
        free(t->vals);
        *t = bigger;
    }
    size_t mask = t->cap - 1, i = (size_t)mix(key) & mask;
    for (;;) {
        uint64_t k = t->keys[i];
        if (k == key) {
            t->vals[i] = val;
            return 0;
        }
        if (k == 0) {
            t->keys[i] = key;
            t->vals[i] = val;
            t->used++;
            return 0;
        }
        i = (i + 1) & mask;
    }
}

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
    cell->base = base;
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
    cell->opts = malloc((size ? size : 1) * sizeof(Opt));
    if (!cell->opts) {
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
            Opt *opt = &cell->opts[count];
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
        qsort(cell->opts, (size_t)count, sizeof(Opt), by_code);
    }
    cell->count = count;
    return 0;
}

static Cell *get_cell(Ctx *x, int n, int c, uint64_t sid) {
    uint64_t key = (((uint64_t)(n * 4 + c) << CB) | sid) + 1;
    if (2 * (x->cused + 1) > x->ccap) {
        size_t cap = x->ccap * 2;
        Cell *bigger = calloc(cap, sizeof(Cell));
        if (!bigger) {
            PyErr_NoMemory();
            return NULL;
        }
        for (size_t j = 0; j < x->ccap; j++) {
            if (x->cells[j].key) {
                size_t i = (size_t)mix(x->cells[j].key) & (cap - 1);
                while (bigger[i].key) i = (i + 1) & (cap - 1);
                bigger[i] = x->cells[j];
            }
        }
        free(x->cells);
        x->cells = bigger;
        x->ccap = cap;
    }
    size_t mask = x->ccap - 1, i = (size_t)mix(key) & mask;
    while (x->cells[i].key) {
        if (x->cells[i].key == key) return &x->cells[i];
        i = (i + 1) & mask;
    }
    Cell *cell = &x->cells[i];
    cell->key = key;
    x->cused++;
    if (fill_cell(x, cell, n, c, sid) < 0) return NULL;
    return cell;
}

/* The group floors at (f, n, c), packed a byte each (they are 0-99). */
static int get_floor(Ctx *x, uint64_t f, int n, int c, long long *packed) {
    uint64_t fk = ((f << 6) | ((uint64_t)n << 2) | (uint64_t)c) + 1;
    long long got = dead_get(&x->floors, fk);
    if (got >= 0) {
        *packed = got;
        return 0;
    }
    PyObject *rest = PyList_GET_ITEM(PyList_GET_ITEM(x->rest_avail, n), c);
    PyObject *fl = PyObject_CallFunction(x->group_floor, "KO", (unsigned long long)f, rest);
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
    if (dead_set(&x->floors, fk, v) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    *packed = v;
    return 0;
}

static inline int is_closed(const Ctx *x, uint64_t sid) {
    return (Py_ssize_t)sid < PyList_GET_SIZE(x->closed) && PyList_GET_ITEM(x->closed, (Py_ssize_t)sid) == Py_True;
}

static inline int all_closed(const Ctx *x, uint64_t nk) {
    return is_closed(x, nk & CM) && is_closed(x, (nk >> CB) & CM) && is_closed(x, (nk >> 2 * CB) & CM) &&
           is_closed(x, (nk >> 3 * CB) & CM);
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
            if (!all_closed(x, nk)) return DONE;
            keep_found(x, sc);
            x->limit = spent - 1;
            return spent <= x->stop ? FOUND : DONE;
        }
        uint64_t node = nk | ((uint64_t)(n + 1) << CELL0);
        if (dead_get(&x->dead, node) >= x->limit - spent) return DONE;
        int r = rec0(x, n + 1, 0, nk, spent, sc);
        if (r) return r;
        return dead_set(&x->dead, node, x->limit - spent) < 0 ? (PyErr_NoMemory(), ERROR) : DONE;
    }
    int sh = CB * c;
    uint64_t sid = (key >> sh) & CM;
    Cell *cell = get_cell(x, n, c, sid);
    if (!cell) return ERROR;
    uint64_t f = key >> G0_SHIFT;
    long long floor;
    if (get_floor(x, f, n, c, &floor) < 0) return ERROR;
    uint64_t basek = key & ~(CM << sh) & COLOURS_MASK;
    const uint64_t *row = x->grow0[f];
    PyObject **here = x->details[n - 1];
    const Opt *opt = cell->opts, *end = cell->opts + cell->count;
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
            if (dead_get(&x->dead, node) >= room - miss) continue;
            here[c] = opt->detail;
            int r = rec0(x, n, c + 1, nk, spent + miss, sc + opt->score);
            if (r) return r;
            room = x->limit - spent;
            if (dead_set(&x->dead, node, room - miss) < 0) {
                PyErr_NoMemory();
                return ERROR;
            }
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
            if (all_closed(x, nk)) {
                keep_found(x, sc + opt->score);
                x->limit = spent2 - 1;
                room = x->limit - spent;
                if (spent2 <= x->stop) return FOUND;
            }
            continue;
        }
        uint64_t closing = nk | nxt;
        if (dead_get(&x->dead, closing) < room - miss) {
            int r = rec0(x, n + 1, 0, nk, spent2, sc + opt->score);
            if (r) return r;
            room = x->limit - spent;
            if (dead_set(&x->dead, closing, room - miss) < 0) {
                PyErr_NoMemory();
                return ERROR;
            }
        }
    }
    return DONE;
}

static void ctx_free(Ctx *x) {
    if (x->cells) {
        for (size_t j = 0; j < x->ccap; j++) {
            if (x->cells[j].key) {
                Py_XDECREF(x->cells[j].base);
                free(x->cells[j].opts);
            }
        }
        free(x->cells);
    }
    free(x->dead.keys);
    free(x->dead.vals);
    free(x->floors.keys);
    free(x->floors.vals);
    PyMem_Free(x);
}

static int read_ints(PyObject *seq, Py_ssize_t want, const char *what) {
    if (!PyList_Check(seq) || PyList_GET_SIZE(seq) < want) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of at least %zd", what, want);
        return -1;
    }
    return 0;
}

static PyObject *search0(PyObject *self, PyObject *args) {
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
    for (int c = 0; c < 4; c++) {
        PyObject *row = PyList_GET_ITEM(idle, c);
        if (read_ints(row, 15, "idle[c]") < 0) goto done;
        for (int n = 0; n < 15; n++) {
            int v = PyObject_IsTrue(PyList_GET_ITEM(row, n));
            if (v < 0) goto done;
            x->idle[c][n] = (unsigned char)v;
        }
    }
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
    if (table_init(&x->dead, 1024) < 0 || table_init(&x->floors, 64) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    x->ccap = 256;
    x->cells = calloc(x->ccap, sizeof(Cell));
    if (!x->cells) {
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
    PyObject *rows = PyList_New(13);
    if (!rows) goto done;
    for (int n = 0; n < 13; n++) {
        PyObject *row = PyList_New(4);
        if (!row) {
            Py_DECREF(rows);
            goto done;
        }
        for (int c = 0; c < 4; c++) {
            Py_INCREF(x->found_details[n][c]);
            PyList_SET_ITEM(row, c, x->found_details[n][c]);
        }
        PyList_SET_ITEM(rows, n, row);
    }
    result = Py_BuildValue("iLLN", how, x->left_steps, x->found_sc, rows);
done:
    ctx_free(x);
    return result;
}

static PyMethodDef methods[] = {
    {"search0", search0, METH_VARARGS,
     "search0(idle, lean_jg, grow0, closed, options, hb, group_floor, rest_avail, idle_detail, slack, stop, budget)\n"
     "The joker-free depth-first loop: referee.solver.search0.search0, compiled (same arguments and answer)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_search0",
    "The joker-free depth-first loop of the best-move solver, compiled (see referee/solver/search0.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__search0(void) {
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddStringConstant(m, "TWIN_SHA256", TWIN_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
