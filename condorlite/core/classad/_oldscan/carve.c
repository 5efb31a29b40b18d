/* carve_amounts: a carve's new values and amounts left in one pass (see
 * condorlite/core/matching/carve_amounts.py, whose python_carve_amounts it equals).
 *
 * For each (position, amount) of moves, have = had[position] - amount, as Python's
 * float subtraction computes it; an integral have (finite, floor(have) == have) puts
 * int(have) into the values and have + 0.0 (so -0.0 is 0.0) into the amounts left,
 * any other have itself into the values and have, or 0.0 for a NaN, into the amounts
 * left. The other positions keep vals' and had's items. Returns (the new values, the
 * new amounts left, whether no new value is exactly a float), three new objects, or
 * None when an argument is not of the kinds the fast path reads (vals and had tuples
 * of one length, had's moved items exact floats, moves a tuple or list of (int,
 * exact float or int) tuples in range): the caller then runs the Python version. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#include "carve.h"

/* the double of an exact float or int amount; -1 and no error set when it is
 * neither (-1 and an error set: an int too large) */
static int
amount_of(PyObject *value, double *out)
{
    if (PyFloat_CheckExact(value)) {
        *out = PyFloat_AS_DOUBLE(value);
        return 0;
    }
    if (PyLong_CheckExact(value)) {
        *out = PyLong_AsDouble(value);
        if (*out == -1.0 && PyErr_Occurred())
            return -1;
        return 0;
    }
    return -1;
}

PyObject *
oldscan_carve_amounts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "carve_amounts(vals, had, moves)");
        return NULL;
    }
    PyObject *vals = args[0], *had = args[1], *moves = args[2];
    if (!PyTuple_CheckExact(vals) || !PyTuple_CheckExact(had)
            || !(PyTuple_CheckExact(moves) || PyList_CheckExact(moves)))
        Py_RETURN_NONE;
    /* (an exact tuple or list: its items read in place, no reference taken) */
    PyObject **items = PySequence_Fast_ITEMS(moves);
    Py_ssize_t n = PyTuple_GET_SIZE(vals);
    if (PyTuple_GET_SIZE(had) != n)
        Py_RETURN_NONE;
    /* the moves checked first: nothing is made when the fast path does not hold */
    Py_ssize_t m = PySequence_Fast_GET_SIZE(moves);
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *move = items[i];
        if (!PyTuple_CheckExact(move) || PyTuple_GET_SIZE(move) != 2
                || !PyLong_CheckExact(PyTuple_GET_ITEM(move, 0)))
            Py_RETURN_NONE;
        Py_ssize_t pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(move, 0));
        if (pos == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        if (pos < 0 || pos >= n || !PyFloat_CheckExact(PyTuple_GET_ITEM(had, pos)))
            Py_RETURN_NONE;
        PyObject *amount = PyTuple_GET_ITEM(move, 1);
        if (!PyFloat_CheckExact(amount) && !PyLong_CheckExact(amount))
            Py_RETURN_NONE;
    }
    PyObject *rest = PyTuple_New(n);
    if (rest == NULL)
        return NULL;
    PyObject *left = PyTuple_New(n);
    if (left == NULL) {
        Py_DECREF(rest);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(vals, i), *l = PyTuple_GET_ITEM(had, i);
        Py_INCREF(v);
        PyTuple_SET_ITEM(rest, i, v);
        Py_INCREF(l);
        PyTuple_SET_ITEM(left, i, l);
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *move = items[i];
        Py_ssize_t pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(move, 0));
        double amount;
        if (amount_of(PyTuple_GET_ITEM(move, 1), &amount) < 0)
            goto fail;  /* (an int too large for a float: OverflowError, as Python's) */
        double have = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(had, pos)) - amount;
        PyObject *value, *amount_left;
        if (isfinite(have) && floor(have) == have) {
            value = PyLong_FromDouble(have);
            amount_left = PyFloat_FromDouble(have + 0.0);
        }
        else {
            value = PyFloat_FromDouble(have);
            amount_left = PyFloat_FromDouble(have == have ? have : 0.0);
        }
        if (value == NULL || amount_left == NULL) {
            Py_XDECREF(value);
            Py_XDECREF(amount_left);
            goto fail;
        }
        /* (a position moved twice: the last move's, as the Python loop leaves it) */
        Py_SETREF(((PyTupleObject *)rest)->ob_item[pos], value);
        Py_SETREF(((PyTupleObject *)left)->ob_item[pos], amount_left);
    }
    int plain = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyFloat_CheckExact(PyTuple_GET_ITEM(rest, i))) {
            plain = 0;
            break;
        }
    }
    PyObject *out = PyTuple_New(3);
    if (out == NULL)
        goto fail;
    PyTuple_SET_ITEM(out, 0, rest);
    PyTuple_SET_ITEM(out, 1, left);
    PyTuple_SET_ITEM(out, 2, Py_NewRef(plain ? Py_True : Py_False));
    return out;
fail:
    Py_DECREF(rest);
    Py_DECREF(left);
    return NULL;
}
