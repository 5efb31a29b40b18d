/* sync_moves: StaticOrders.sync's per-offer step on its common path, in one loop (see
 * condorlite/core/matching/sync_moves.py; the Python step is
 * StaticOrders._move, which this equals on the offers it takes: the same look-ups,
 * stores, calls and appends, in the same order).
 *
 * sync_moves(offers, at, context) -> the index of the first offer from at it does not take
 *     (len(offers) when it takes them all); context is the tuple (walked, groups,
 *     orders, keyed, items, shape_left, tier_of_left, pending, moves_type, shared,
 *     shared_on, pre, post, dependent). An offer is taken when its static is
 *     walked (passed over), or when it is nobody's, its static ordered, its pre-job
 *     rank job-free (pre in its independent ranks) or its static keyed (then with an
 *     old item when it is available, and available) and, its state shared by several
 *     offers, shared_on: its old item (items.pop) noted gone in pending[(static, old
 *     tier)], its new item (key, seq, version, shape, post, vals, name, tier) made,
 *     stored in items and noted added in pending[(static, tier)] (a moves_type(gone,
 *     added) made where missing). Every other offer is the caller's (_move). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "sync.h"

static PyObject *s_vector, *s_static, *s_independent, *s_shape, *s_seq, *s_available,
    *s_holder, *s_vals, *s_version, *s_name, *s_key;

static int
intern_names(void)
{
    if (s_key != NULL)
        return 0;
#define NAME(var, text)                                    \
    if ((var = PyUnicode_InternFromString(text)) == NULL) \
        return -1;
    NAME(s_vector, "vector")
    NAME(s_static, "static")
    NAME(s_independent, "independent")
    NAME(s_shape, "shape")
    NAME(s_seq, "seq")
    NAME(s_available, "available")
    NAME(s_holder, "holder")
    NAME(s_vals, "vals")
    NAME(s_version, "version")
    NAME(s_name, "name")
    NAME(s_key, "key")
#undef NAME
    return 0;
}

/* pending[(static, tier)], the tier list's (gone, added) lists, made where missing
 * (moves_type(gone, added)); borrowed, NULL on an error */
static PyObject *
pending_moves(PyObject *pending, PyObject *moves_type, PyObject *static_, PyObject *tier)
{
    PyObject *place = PyTuple_Pack(2, static_, tier);
    if (place == NULL)
        return NULL;
    PyObject *moves = PyDict_GetItemWithError(pending, place);
    if (moves == NULL) {
        if (PyErr_Occurred()) {
            Py_DECREF(place);
            return NULL;
        }
        PyObject *gone = PyList_New(0), *added = PyList_New(0);
        if (gone == NULL || added == NULL) {
            Py_XDECREF(gone);
            Py_XDECREF(added);
            Py_DECREF(place);
            return NULL;
        }
        moves = PyObject_CallFunctionObjArgs(moves_type, gone, added, NULL);
        Py_DECREF(gone);
        Py_DECREF(added);
        if (moves == NULL || PyDict_SetItem(pending, place, moves) < 0) {
            Py_XDECREF(moves);
            Py_DECREF(place);
            return NULL;
        }
        Py_DECREF(moves); /* (the dict holds it) */
    }
    Py_DECREF(place);
    if (!PyTuple_Check(moves) || PyTuple_GET_SIZE(moves) != 2
            || !PyList_Check(PyTuple_GET_ITEM(moves, 0))
            || !PyList_Check(PyTuple_GET_ITEM(moves, 1))) {
        PyErr_SetString(PyExc_TypeError, "sync_moves: a tier's moves are (gone, added) lists");
        return NULL;
    }
    return moves;
}

/* the tier of a state with amounts left `left`: () when it is a non-empty tuple of
 * floats whose min (Python's: the first of the smallest by <) is > 0, else
 * tier_of_left(left); a new reference, NULL on an error */
static PyObject *
tier_of(PyObject *left, PyObject *tier_of_left, PyObject *empty)
{
    if (PyTuple_CheckExact(left) && PyTuple_GET_SIZE(left) > 0) {
        Py_ssize_t n = PyTuple_GET_SIZE(left), i;
        int floats = 1;
        for (i = 0; i < n; i++) {
            if (!PyFloat_CheckExact(PyTuple_GET_ITEM(left, i))) {
                floats = 0;
                break;
            }
        }
        if (floats) {
            double low = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(left, 0));
            for (i = 1; i < n; i++) {
                double x = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(left, i));
                if (x < low)
                    low = x;
            }
            if (low > 0) {
                Py_INCREF(empty);
                return empty;
            }
        }
    }
    return PyObject_CallOneArg(tier_of_left, left);
}

/* 1 when the offer is taken (its step done), 0 when it is the caller's, -1 on an
 * error */
static int
step(PyObject *offer, PyObject *const *a, PyObject *empty)
{
    PyObject *walked = a[0], *groups = a[1], *orders = a[2], *keyed = a[3],
             *items = a[4], *shape_left = a[5], *tier_of_left = a[6], *pending = a[7],
             *moves_type = a[8], *shared = a[9], *pre = a[11], *post = a[12],
             *dependent = a[13];
    int shared_on = PyObject_IsTrue(a[10]);
    PyObject *vector = NULL, *static_ = NULL, *values = NULL, *shape = NULL, *seq = NULL,
             *available = NULL, *holder = NULL, *vals = NULL, *key = NULL,
             *left = NULL, *tier = NULL, *version = NULL, *name = NULL, *item = NULL,
             *old = NULL, *found;
    PyObject *members = NULL; /* borrowed */
    int result = -1, r;
    if (shared_on < 0)
        return -1;
    if ((vector = PyObject_GetAttr(offer, s_vector)) == NULL
            || (static_ = PyObject_GetAttr(vector, s_static)) == NULL)
        goto done;
    r = PySet_Contains(walked, static_);
    if (r != 0) {
        result = r < 0 ? -1 : 1;
        goto done;
    }
    /* (a static not ordered yet: the caller's, before anything else is read) */
    r = PyDict_Contains(orders, static_);
    if (r <= 0) {
        result = r;
        goto done;
    }
    if ((values = PyObject_GetAttr(offer, s_independent)) == NULL
            || (shape = PyObject_GetAttr(offer, s_shape)) == NULL
            || (seq = PyObject_GetAttr(offer, s_seq)) == NULL
            || (available = PyObject_GetAttr(offer, s_available)) == NULL)
        goto done;
    if (!PyDict_CheckExact(values)) {
        result = 0;
        goto done;
    }
    r = PyObject_IsTrue(available);
    if (r < 0)
        goto done;
    if (r) {
        PyObject *shapes = PyDict_GetItemWithError(groups, static_);
        if (shapes == NULL) {
            result = PyErr_Occurred() ? -1 : 0;
            goto done;
        }
        if (!PyDict_Check(shapes)) {
            result = 0;
            goto done;
        }
        members = PyDict_GetItemWithError(shapes, shape);
        if (members == NULL && PyErr_Occurred())
            goto done;
    }
    int has_pre = PyDict_Contains(values, pre);
    if (has_pre < 0)
        goto done;
    if (!has_pre) {
        /* (not keyed: _unkeyed's; keyed, the by-group bookkeeping of an offer new to
         * the order or gone from it: _move's) */
        r = PyDict_Contains(keyed, static_);
        if (r <= 0) {
            result = r;
            goto done;
        }
        if (members == NULL) {
            result = 0;
            goto done;
        }
        r = PyDict_Contains(items, seq);
        if (r <= 0) {
            result = r;
            goto done;
        }
    }
    if ((holder = PyObject_GetAttr(offer, s_holder)) == NULL)
        goto done;
    if (holder != Py_None) {
        result = 0;
        goto done;
    }
    if (members != NULL) {
        Py_ssize_t many = PyObject_Length(members);
        if (many < 0)
            goto done;
        if (many > 1) {
            if (!shared_on) {
                result = 0;
                goto done;
            }
            if (PySet_Add(shared, static_) < 0)
                goto done;
        }
    }
    /* (taken from here on: the step's stores) */
    old = PyDict_GetItemWithError(items, seq);
    if (old == NULL && PyErr_Occurred())
        goto done;
    PyObject *old_tier = NULL; /* borrowed from old */
    PyObject *moves_list = NULL; /* borrowed: the old item's tier's added list */
    if (old != NULL) {
        Py_INCREF(old);
        if (PyDict_DelItem(items, seq) < 0)
            goto done;
        if (!PyTuple_Check(old) || PyTuple_GET_SIZE(old) != 8) {
            PyErr_SetString(PyExc_TypeError, "sync_moves: an item is an 8-tuple");
            goto done;
        }
        old_tier = PyTuple_GET_ITEM(old, 7);
        PyObject *moves = pending_moves(pending, moves_type, static_, old_tier);
        if (moves == NULL || PyList_Append(PyTuple_GET_ITEM(moves, 0), old) < 0)
            goto done;
        moves_list = PyTuple_GET_ITEM(moves, 1);
    }
    if (members != NULL) {
        if ((vals = PyObject_GetAttr(vector, s_vals)) == NULL)
            goto done;
        if (has_pre) {
            found = PyDict_GetItemWithError(values, pre);
            if (found == NULL) {
                if (!PyErr_Occurred())
                    PyErr_SetObject(PyExc_KeyError, pre);
                goto done;
            }
            if ((key = PyNumber_Negative(found)) == NULL)
                goto done;
        }
        else {
            found = PyDict_GetItemWithError(keyed, static_);
            if (found == NULL) {
                if (!PyErr_Occurred())
                    PyErr_SetObject(PyExc_KeyError, static_);
                goto done;
            }
            if (!PyTuple_Check(found) || PyTuple_GET_SIZE(found) < 2) {
                PyErr_SetString(PyExc_TypeError, "sync_moves: a keyed static's split");
                goto done;
            }
            PyObject *args[3] = {PyTuple_GET_ITEM(found, 0), PyTuple_GET_ITEM(found, 1), vals};
            key = PyObject_VectorcallMethod(s_key, args, 3, NULL);
            if (key == NULL)
                goto done;
        }
        left = PyDict_GetItemWithError(shape_left, shape);
        if (left == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, shape);
            goto done;
        }
        if ((tier = tier_of(left, tier_of_left, empty)) == NULL)
            goto done;
        left = NULL; /* (borrowed) */
        if ((version = PyObject_GetAttr(offer, s_version)) == NULL
                || (name = PyObject_GetAttr(offer, s_name)) == NULL)
            goto done;
        PyObject *post_value = PyDict_GetItemWithError(values, post);
        if (post_value == NULL) {
            if (PyErr_Occurred())
                goto done;
            post_value = dependent;
        }
        item = PyTuple_Pack(8, key, seq, version, shape, post_value, vals, name, tier);
        if (item == NULL || PyDict_SetItem(items, seq, item) < 0)
            goto done;
        if (old == NULL || (r = PyObject_RichCompareBool(tier, old_tier, Py_NE)) != 0) {
            if (old != NULL && r < 0)
                goto done;
            PyObject *moves = pending_moves(pending, moves_type, static_, tier);
            if (moves == NULL)
                goto done;
            moves_list = PyTuple_GET_ITEM(moves, 1);
        }
        if (PyList_Append(moves_list, item) < 0)
            goto done;
    }
    result = 1;
done:
    Py_XDECREF(vector);
    Py_XDECREF(static_);
    Py_XDECREF(values);
    Py_XDECREF(shape);
    Py_XDECREF(seq);
    Py_XDECREF(available);
    Py_XDECREF(holder);
    Py_XDECREF(vals);
    Py_XDECREF(key);
    Py_XDECREF(tier);
    Py_XDECREF(version);
    Py_XDECREF(name);
    Py_XDECREF(item);
    Py_XDECREF(old);
    return result;
}

PyObject *
oldscan_sync_moves(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    PyObject *context = nargs == 3 ? args[2] : NULL;
    if (context == NULL || !PyList_Check(args[0]) || !PyTuple_Check(context)
            || PyTuple_GET_SIZE(context) != 14) {
        PyErr_SetString(PyExc_TypeError, "sync_moves(offers, at, context)");
        return NULL;
    }
    PyObject *const *a = &PyTuple_GET_ITEM(context, 0);
    if (!PyAnySet_Check(a[0]) || !PyDict_Check(a[1]) || !PyDict_Check(a[2])
            || !PyDict_Check(a[3]) || !PyDict_Check(a[4]) || !PyDict_Check(a[5])
            || !PyDict_Check(a[7]) || !PySet_Check(a[9])) {
        PyErr_SetString(PyExc_TypeError,
                        "sync_moves: context is (walked, groups, orders, keyed, items, "
                        "shape_left, tier_of_left, pending, moves_type, shared, "
                        "shared_on, pre, post, dependent)");
        return NULL;
    }
    if (intern_names() < 0)
        return NULL;
    Py_ssize_t at = PyLong_AsSsize_t(args[1]);
    if (at == -1 && PyErr_Occurred())
        return NULL;
    PyObject *empty = PyTuple_New(0);
    if (empty == NULL)
        return NULL;
    PyObject *offers = args[0];
    for (; at < PyList_GET_SIZE(offers); at++) {
        PyObject *offer = PyList_GET_ITEM(offers, at);
        Py_INCREF(offer);
        int taken = step(offer, a, empty);
        Py_DECREF(offer);
        if (taken < 0) {
            Py_DECREF(empty);
            return NULL;
        }
        if (!taken)
            break;
    }
    Py_DECREF(empty);
    return PyLong_FromSsize_t(at);
}
