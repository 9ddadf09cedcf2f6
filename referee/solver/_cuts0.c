/* One Gomory mixed-integer cut of the exact tie-break, compiled: the twin of _gmi_cut() in
 * referee/solver/least.py, which is its specification and its fall-back (least.py uses this one
 * where it is built, current (CUTS_VERSION) and RUMMIKUB_SOLVER_PURE is not set). Same
 * arguments, same answer bit for bit: the same entries visited in the same order, the same
 * floating-point operations in the same order (doubles, no contraction: -ffp-contract=off where
 * the compiler would fuse), the same checks. Where an entry it would visit is not finite it
 * returns NotImplemented and the twin runs (it raises, as it did).
 *
 * Why C: on the full tables with jokers a cut reads 1,800-3,200 tableau entries with a fraction
 * and expands 4,200-7,100 row entries, 2-3 ms of interpreter a cut, and the slow positions compute
 * 50-120 cuts (referee/SOLVER.md, session 21, second pass). A change to _gmi_cut must be made here
 * too, with CUTS_VERSION raised in both. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CUTS_VERSION 2

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

/* A C-contiguous buffer of the given item format ('d' doubles, 'q' long long, 'B' bytes, which
 * 'b' bytes also are), writable when asked. */
static int typed_buffer(PyObject *obj, Py_buffer *view, const char *format, Py_ssize_t itemsize, int writable) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) return -1;
    if (view->itemsize != itemsize || (view->format && strcmp(view->format, format) != 0 &&
                                       !(format[0] == 'B' && strcmp(view->format, "b") == 0))) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "a %sbuffer of '%s' was expected", writable ? "writable " : "", format);
        return -1;
    }
    return 0;
}

/* A read-only buffer of the given item format. */
static int get_buffer(PyObject *obj, Py_buffer *view, const char *format, Py_ssize_t itemsize) {
    return typed_buffer(obj, view, format, itemsize, 0);
}

/* gmi_cut(trow, brow, f0, sifted, n, m0, whole, col_side, row_side, upper, x, starts, cols, vals,
 *         lo, hi, cut_starts, cut_cols, cut_vals, cut_lo)
 * trow (n doubles), brow (rows doubles): the tableau row and the basis-inverse row; col_side,
 * row_side: bytes as _gomory_cuts sets them; upper, x: doubles; starts, cols (long long), vals,
 * lo, hi (doubles): the programme's m0 rows; cut_starts, cut_cols (long long), cut_vals, cut_lo
 * (doubles): the cuts' rows added so far (rows m0 on).
 * Returns None (no cut from this row), (columns, values, rhs) or NotImplemented (an entry not
 * finite: the twin decides). */
static PyObject *gmi_cut(PyObject *self, PyObject *args) {
    PyObject *o[18];
    double f0;
    int sifted;
    Py_ssize_t n, m0, whole;
    if (!PyArg_ParseTuple(args, "OOdpnnnOOOOOOOOOOOOO", &o[0], &o[1], &f0, &sifted, &n, &m0, &whole, &o[2], &o[3],
                          &o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13], &o[14]))
        return NULL;
    static const char *formats[15] = {"d", "d", "B", "B", "d", "d", "q", "q", "d", "d", "d", "q", "q", "d", "d"};
    static const Py_ssize_t sizes[15] = {8, 8, 1, 1, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8};
    Py_buffer v[15];
    int got = 0;
    PyObject *result = NULL;
    double *coef = NULL;
    for (; got < 15; got++)
        if (get_buffer(o[got], &v[got], formats[got], sizes[got]) < 0) goto done;
    const double *trow = v[0].buf, *brow = v[1].buf;
    const unsigned char *col_side = v[2].buf, *row_side = v[3].buf;
    const double *upper = v[4].buf, *x = v[5].buf;
    const long long *starts = v[6].buf, *cols = v[7].buf;
    const double *vals = v[8].buf, *lo = v[9].buf, *hi = v[10].buf;
    const long long *cut_starts = v[11].buf, *cut_cols = v[12].buf;
    const double *cut_vals = v[13].buf, *cut_lo = v[14].buf;
    Py_ssize_t rows = v[1].len / 8, ncuts = v[14].len / 8;
    if (v[0].len / 8 < n || v[2].len != n || v[3].len != rows || v[4].len / 8 != n || v[5].len / 8 < n ||
        v[6].len / 8 != m0 + 1 || v[9].len / 8 != m0 || v[10].len / 8 != m0 || rows != m0 + ncuts ||
        v[11].len / 8 != ncuts + 1) {
        result = Py_NewRef(Py_NotImplemented); /* (sizes the twin would read otherwise: it decides) */
        goto done;
    }
    coef = calloc(n > 0 ? (size_t)n : 1, sizeof(double));
    if (!coef) {
        PyErr_NoMemory();
        goto done;
    }
    const double g0 = 1.0 - f0;
    double rhs = 1.0;
    /* The tableau row's entries (with sifted those with a fraction, otherwise the nonzero ones). */
    for (Py_ssize_t j = 0; j < n; j++) {
        double t = trow[j];
        if (!isfinite(t)) { /* (visited by the twin whatever sifted says: it decides) */
            result = Py_NewRef(Py_NotImplemented);
            goto done;
        }
        if (sifted ? t == floor(t) : t == 0.0) continue;
        int side = col_side[j];
        double a;
        if (side == 1)
            a = t;
        else if (side == 2)
            a = -t;
        else if (side) {
            result = Py_NewRef(Py_None); /* (a column between its bounds: no cut) */
            goto done;
        } else
            continue;
        double w;
        if (j < whole) {
            double fa = a - floor(a);
            if (fa < 1e-9 || fa > 1 - 1e-9) continue;
            w = fa <= f0 ? fa / f0 : (1.0 - fa) / g0;
        } else
            w = a > 0 ? a / f0 : -a / g0;
        if (side == 2) {
            coef[j] -= w;
            rhs -= w * upper[j];
        } else
            coef[j] += w;
    }
    /* The basis-inverse row's entries: the programme's rows (with sifted those with a fraction),
     * then the cuts' rows (nonzero), in order. */
    for (Py_ssize_t r = 0; r < rows; r++) {
        double b = brow[r];
        if (!isfinite(b)) {
            result = Py_NewRef(Py_NotImplemented);
            goto done;
        }
        if ((sifted && r < m0) ? b == floor(b) : b == 0.0) continue;
        int side = row_side[r];
        if (!side) continue;
        double a = -b;
        if (side == 4) {
            if (r < m0) {
                PyErr_SetString(PyExc_ValueError, "gmi_cut: a cut's row among the programme's");
                goto done;
            }
            double w = a > 0 ? a / f0 : -a / g0;
            Py_ssize_t k = r - m0;
            for (long long e = cut_starts[k]; e < cut_starts[k + 1]; e++) coef[cut_cols[e]] += w * cut_vals[e];
            rhs += w * cut_lo[k];
            continue;
        }
        if (side == 3 || r >= m0) {
            result = Py_NewRef(Py_None); /* (a row between its bounds: no cut) */
            goto done;
        }
        long long begin = starts[r], end = starts[r + 1];
        int continuous = 0;
        for (long long e = begin; e < end; e++)
            if (cols[e] >= whole) {
                continuous = 1;
                break;
            }
        if (side == 2) a = -a;
        double w;
        if (continuous)
            w = a > 0 ? a / f0 : -a / g0;
        else {
            double fa = a - floor(a);
            if (fa < 1e-9 || fa > 1 - 1e-9) continue;
            w = fa <= f0 ? fa / f0 : (1.0 - fa) / g0;
        }
        double sign;
        if (side == 2) {
            sign = -w;
            rhs += sign * hi[r];
        } else {
            sign = w;
            rhs += sign * lo[r];
        }
        for (long long e = begin; e < end; e++) coef[cols[e]] += sign * vals[e];
    }
    /* The cut: its entries over 1e-9, unless badly scaled or not cutting the vertex off. */
    Py_ssize_t count = 0;
    double most = 0.0, least = INFINITY, dot = 0.0;
    for (Py_ssize_t j = 0; j < n; j++) {
        double c = fabs(coef[j]);
        if (c > 1e-9) {
            count++;
            if (c > most) most = c;
            if (c < least) least = c;
        }
    }
    if (!count || !isfinite(rhs)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    for (Py_ssize_t j = 0; j < n; j++)
        if (fabs(coef[j]) > 1e-9) dot += coef[j] * x[j];
    if (most > 1e6 * least || dot > rhs - 1e-4) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *cs = PyList_New(count), *vs = cs ? PyList_New(count) : NULL;
    if (!vs) {
        Py_XDECREF(cs);
        goto done;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        if (fabs(coef[j]) > 1e-9) {
            PyObject *c = PyLong_FromSsize_t(j), *f = c ? PyFloat_FromDouble(coef[j]) : NULL;
            if (!f) {
                Py_XDECREF(c);
                Py_DECREF(cs);
                Py_DECREF(vs);
                goto done;
            }
            PyList_SET_ITEM(cs, k, c);
            PyList_SET_ITEM(vs, k, f);
            k++;
        }
    }
    result = Py_BuildValue("(NNd)", cs, vs, rhs);
done:
    free(coef);
    for (int i = 0; i < got; i++) PyBuffer_Release(&v[i]);
    return result;
}

/* A writable buffer of the given item format. */
static int get_writable(PyObject *obj, Py_buffer *view, const char *format, Py_ssize_t itemsize) {
    return typed_buffer(obj, view, format, itemsize, 1);
}

/* colwise(n, starts, cols, vals, cut_starts, cut_cols, cut_vals, cstart, cindex, cvalue)
 * The programme's rows and the cuts' rows after them (row-wise, as gmi_cut takes them) written
 * column-wise into cstart (n + 1 long long), cindex (long long) and cvalue (doubles): each
 * column's entries by ascending row, as HiGHS holds its matrix column-wise (a transposition of
 * the rows in their order). Returns None; ValueError where the sizes do not agree. */
static PyObject *colwise(PyObject *self, PyObject *args) {
    PyObject *o[9];
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "nOOOOOOOOO", &n, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8]))
        return NULL;
    static const char *formats[9] = {"q", "q", "d", "q", "q", "d", "q", "q", "d"};
    Py_buffer v[9];
    int got = 0;
    PyObject *result = NULL;
    for (; got < 6; got++)
        if (get_buffer(o[got], &v[got], formats[got], 8) < 0) goto done;
    for (; got < 9; got++)
        if (get_writable(o[got], &v[got], formats[got], 8) < 0) goto done;
    const long long *starts[2] = {v[0].buf, v[3].buf}, *cols[2] = {v[1].buf, v[4].buf};
    const double *vals[2] = {v[2].buf, v[5].buf};
    Py_ssize_t nrows[2] = {v[0].len / 8 - 1, v[3].len / 8 - 1};
    long long *cstart = v[6].buf, *cindex = v[7].buf;
    double *cvalue = v[8].buf;
    Py_ssize_t nnz = v[7].len / 8;
    if (nrows[0] < 0 || nrows[1] < 0 || v[6].len / 8 != n + 1 || v[8].len / 8 != nnz ||
        starts[0][nrows[0]] + starts[1][nrows[1]] != nnz || v[1].len / 8 < starts[0][nrows[0]] ||
        v[2].len / 8 < starts[0][nrows[0]] || v[4].len / 8 < starts[1][nrows[1]] || v[5].len / 8 < starts[1][nrows[1]]) {
        PyErr_SetString(PyExc_ValueError, "colwise: the sizes do not agree");
        goto done;
    }
    for (Py_ssize_t j = 0; j <= n; j++) cstart[j] = 0;
    for (int part = 0; part < 2; part++)
        for (long long k = 0; k < starts[part][nrows[part]]; k++) {
            long long c = cols[part][k];
            if (c < 0 || c >= n) {
                PyErr_SetString(PyExc_ValueError, "colwise: a column out of range");
                goto done;
            }
            cstart[c + 1]++;
        }
    for (Py_ssize_t j = 0; j < n; j++) cstart[j + 1] += cstart[j];
    /* (cstart[j] is the next free place of column j while filling; shifted back after.) */
    long long row = 0;
    for (int part = 0; part < 2; part++)
        for (Py_ssize_t r = 0; r < nrows[part]; r++, row++)
            for (long long k = starts[part][r]; k < starts[part][r + 1]; k++) {
                long long at = cstart[cols[part][k]]++;
                cindex[at] = row;
                cvalue[at] = vals[part][k];
            }
    for (Py_ssize_t j = n; j > 0; j--) cstart[j] = cstart[j - 1];
    cstart[0] = 0;
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < got; i++) PyBuffer_Release(&v[i]);
    return result;
}

/* tableau_row(brow, cstart, cindex, cvalue, out)
 * The row of B^-1 A from the basis-inverse row brow (doubles, one a row) and the matrix held
 * column-wise (colwise): out[j] = the sum over column j's entries, by ascending row, of value x
 * brow[row], from 0.0, no contraction; 0.0 where its size is not above 1e-14. The same
 * operations in the same order as HiGHS's getReducedRow (1.16, x86_64, where nothing is fused),
 * so the same bits (checked by the tests against highspy's row). Returns None. */
static PyObject *tableau_row(PyObject *self, PyObject *args) {
    PyObject *o[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &o[0], &o[1], &o[2], &o[3], &o[4])) return NULL;
    static const char *formats[4] = {"d", "q", "q", "d"};
    Py_buffer v[5];
    int got = 0;
    PyObject *result = NULL;
    for (; got < 4; got++)
        if (get_buffer(o[got], &v[got], formats[got], 8) < 0) goto done;
    if (get_writable(o[4], &v[4], "d", 8) < 0) goto done;
    got++;
    const double *brow = v[0].buf, *cvalue = v[3].buf;
    const long long *cstart = v[1].buf, *cindex = v[2].buf;
    double *out = v[4].buf;
    Py_ssize_t rows = v[0].len / 8, n = v[1].len / 8 - 1, nnz = v[2].len / 8;
    if (n < 0 || v[4].len / 8 != n || v[3].len / 8 != nnz || cstart[n] != nnz) {
        PyErr_SetString(PyExc_ValueError, "tableau_row: the sizes do not agree");
        goto done;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        double t = 0.0;
        for (long long k = cstart[j]; k < cstart[j + 1]; k++) {
            long long r = cindex[k];
            if (r < 0 || r >= rows) {
                PyErr_SetString(PyExc_ValueError, "tableau_row: a row out of range");
                goto done;
            }
            t = cvalue[k] * brow[r] + t;
        }
        out[j] = fabs(t) > 1e-14 ? t : 0.0;
    }
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < got; i++) PyBuffer_Release(&v[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"gmi_cut", gmi_cut, METH_VARARGS,
     "gmi_cut(trow, brow, f0, sifted, n, m0, whole, col_side, row_side, upper, x, starts, cols, vals, lo, hi,\n"
     "        cut_starts, cut_cols, cut_vals, cut_lo)\n"
     "One Gomory mixed-integer cut: referee.solver.least._gmi_cut, compiled (same answer bit for bit)."},
    {"colwise", colwise, METH_VARARGS,
     "colwise(n, starts, cols, vals, cut_starts, cut_cols, cut_vals, cstart, cindex, cvalue)\n"
     "The programme's rows and the cuts' written column-wise (each column's entries by ascending row)."},
    {"tableau_row", tableau_row, METH_VARARGS,
     "tableau_row(brow, cstart, cindex, cvalue, out)\n"
     "The row of B^-1 A from the basis-inverse row, as HiGHS's getReducedRow computes it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cuts0", "One Gomory mixed-integer cut of the exact tie-break, compiled (see referee/solver/least.py).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__cuts0(void) {
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "CUTS_VERSION", CUTS_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
