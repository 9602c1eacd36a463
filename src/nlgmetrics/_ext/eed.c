/* The Extended Edit Distance dynamic program (Stanchev, Wang and Ney 2019) of one hypothesis-reference pair,
 * with the very floating-point operations, in the very order, of the reference implementation (RWTH's EED.py, as
 * torchmetrics' extended_edit_distance runs it): every cell is the smallest of three sums computed left to right,
 * the row minimum is its first occurrence, a long jump follows a reference space. Ties between equal costs are
 * therefore broken exactly as there, which a vectorised (numpy) formulation cannot promise: its running minimum
 * adds the deletion cost in another order and rounds differently, and a different row minimum changes the
 * coverage term. The cells of one row depend on their left neighbour, so no array library runs them faster than
 * Python does; hence this small kernel. nlgmetrics/metrics/eed.py holds the same loop in Python (used when this
 * extension is not built) and the tests check both against the reference.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

static PyObject *eed_pair(PyObject *self, PyObject *args) {
    PyObject *hyp, *ref;
    double alpha, rho, deletion, insertion;
    if (!PyArg_ParseTuple(args, "UUdddd", &hyp, &ref, &alpha, &rho, &deletion, &insertion)) return NULL;
    Py_ssize_t lh = PyUnicode_GET_LENGTH(hyp), lr = PyUnicode_GET_LENGTH(ref);
    int kh = PyUnicode_KIND(hyp), kr = PyUnicode_KIND(ref);
    const void *dh = PyUnicode_DATA(hyp), *dr = PyUnicode_DATA(ref);
    double *row = (double *)malloc(sizeof(double) * (size_t)(lh + 1));
    double *next = (double *)malloc(sizeof(double) * (size_t)(lh + 1));
    long long *visits = (long long *)malloc(sizeof(long long) * (size_t)(lh + 1));
    Py_UCS4 *h = (Py_UCS4 *)malloc(sizeof(Py_UCS4) * (size_t)(lh + 1));
    if (!row || !next || !visits || !h) {
        free(row); free(next); free(visits); free(h);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i <= lh; i++) { row[i] = 1.0; visits[i] = -1; }
    row[0] = 0.0;
    for (Py_ssize_t i = 0; i < lh; i++) h[i] = PyUnicode_READ(kh, dh, i);
    for (Py_ssize_t w = 0; w < lr; w++) {
        Py_UCS4 c = PyUnicode_READ(kr, dr, w);
        next[0] = row[0] + 1.0;
        for (Py_ssize_t i = 1; i <= lh; i++) {
            double best = next[i - 1] + deletion;
            double sub = row[i - 1] + (h[i - 1] != c ? 1.0 : 0.0);
            double ins = row[i] + insertion;
            if (sub < best) best = sub;
            if (ins < best) best = ins;
            next[i] = best;
        }
        Py_ssize_t at = 0;
        for (Py_ssize_t i = 1; i <= lh; i++)
            if (next[i] < next[at]) at = i;
        visits[at] += 1;
        if (c == ' ') {
            double jump = alpha + next[at];
            for (Py_ssize_t i = 0; i <= lh; i++)
                if (jump < next[i]) next[i] = jump;
        }
        double *tmp = row; row = next; next = tmp;
    }
    long long total = 0;
    for (Py_ssize_t i = 0; i <= lh; i++) total += visits[i] >= 0 ? visits[i] : 1;
    double last = row[lh];
    free(row); free(next); free(visits); free(h);
    double coverage = rho * (double)total;
    double den = (double)lr + coverage;
    if (den == 0.0) {
        PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero");
        return NULL;
    }
    double score = (last + coverage) / den;
    return PyFloat_FromDouble(score < 1.0 ? score : 1.0);
}

static PyMethodDef methods[] = {
    {"eed_pair", eed_pair, METH_VARARGS,
     "eed_pair(hyp, ref, alpha, rho, deletion, insertion) -> float: the EED of one pair"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_eed", NULL, -1, methods};

PyMODINIT_FUNC PyInit__eed(void) { return PyModule_Create(&module); }
