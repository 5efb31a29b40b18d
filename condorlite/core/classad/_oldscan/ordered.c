/* ordered_make: an ordered source's items made into the entries of a candidate list,
 * in one loop (see condorlite/core/matching/ordered_make.py, whose
 * python_ordered_make it equals, step for step: the same comparisons, look-ups,
 * stores and calls of run, in the same order).
 *
 * ordered_make(items, at, room, last, requests, left, pair_of, known, boxed, kept,
 *              run, batch, dependent, post, tail) -> (at, evaluations)
 * literal_make(items, at, extra, xat, skip, group, room, last, requests, left, pair_of,
 *              known, boxed, kept, run, batch, dependent, post, tail)
 *     -> (at, xat, evaluations): the same over the merge, by key, of items (those
 *     whose group(vals) is in skip passed over) and extra (python_literal_make). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ordered.h"

/* Python's a OP b as 1 or 0 (-1: an error), exact floats compared as doubles (what
 * float's own comparison does, NaN included), anything else by rich comparison
 * (never the identity shortcut of PyObject_RichCompareBool: a NaN is unequal to
 * itself). */
static int
compare(PyObject *a, PyObject *b, int op)
{
    if (PyFloat_CheckExact(a) && PyFloat_CheckExact(b)) {
        double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
        switch (op) {
        case Py_GT:
            return x > y;
        case Py_NE:
            return x != y;
        case Py_LE:
            return x <= y;
        default:
            break;
        }
    }
    PyObject *res = PyObject_RichCompare(a, b, op);
    if (res == NULL)
        return -1;
    int truth = PyObject_IsTrue(res);
    Py_DECREF(res);
    return truth;
}

/* item index of a PairEval (a named tuple: match, job_rank, slot_rank, dependent,
 * taken), borrowed; NULL and TypeError when it is no tuple that long */
static PyObject *
pair_field(PyObject *pair, Py_ssize_t index)
{
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) <= index) {
        PyErr_SetString(PyExc_TypeError, "ordered_make: a pair result is a PairEval");
        return NULL;
    }
    return PyTuple_GET_ITEM(pair, index);
}

/* whether the state with amounts left have holds every (position, amount) of
 * requests: 1, 0, or -1 on an error */
static int
fits(PyObject *requests, PyObject *have)
{
    Py_ssize_t n = PyList_GET_SIZE(requests);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *request = PyList_GET_ITEM(requests, i);
        if (!PyTuple_CheckExact(request) || PyTuple_GET_SIZE(request) != 2) {
            PyErr_SetString(PyExc_TypeError, "ordered_make: a request is (position, amount)");
            return -1;
        }
        PyObject *pos = PyTuple_GET_ITEM(request, 0), *amount = PyTuple_GET_ITEM(request, 1);
        PyObject *had = PyObject_GetItem(have, pos);
        if (had == NULL)
            return -1;
        int over = compare(amount, had, Py_GT);
        Py_DECREF(had);
        if (over != 0)
            return over < 0 ? -1 : 0;
    }
    return 1;
}

/* dict[key], borrowed; NULL and KeyError when absent (as Python's subscript) */
static PyObject *
subscript(PyObject *dict, PyObject *key)
{
    PyObject *found = PyDict_GetItemWithError(dict, key);
    if (found == NULL && !PyErr_Occurred())
        _PyErr_SetKeyError(key);
    return found;
}

/* the entry of an item of a matching pair: (key, -job rank, -post, tail[0], tail[1],
 * name, idx, version, tail[2]); a new reference, NULL on an error */
static PyObject *
entry_of(PyObject *item, PyObject *known, PyObject *kept, PyObject *dependent,
         PyObject *post_key, PyObject *tail)
{
    PyObject *key = PyTuple_GET_ITEM(item, 0), *idx = PyTuple_GET_ITEM(item, 1);
    PyObject *version = PyTuple_GET_ITEM(item, 2), *post = PyTuple_GET_ITEM(item, 4);
    PyObject *name = PyTuple_GET_ITEM(item, 6);
    PyObject *rank, *rank_neg, *post_neg;
    if (kept == Py_None) {
        rank = pair_field(known, 1);
        if (rank == NULL)
            return NULL;
        rank_neg = PyNumber_Negative(rank);
    }
    else {
        PyObject *value = subscript(kept, idx);
        if (value == NULL)
            return NULL;
        rank = PySequence_GetItem(value, 1);
        if (rank == NULL)
            return NULL;
        rank_neg = PyNumber_Negative(rank);
        Py_DECREF(rank);
    }
    if (rank_neg == NULL)
        return NULL;
    if (post != dependent)
        post_neg = PyNumber_Negative(post);
    else {
        PyObject *ranks = pair_field(known, 3);
        PyObject *value = ranks == NULL ? NULL : PyObject_GetItem(ranks, post_key);
        post_neg = value == NULL ? NULL : PyNumber_Negative(value);
        Py_XDECREF(value);
    }
    if (post_neg == NULL) {
        Py_DECREF(rank_neg);
        return NULL;
    }
    PyObject *entry = PyTuple_New(9);
    if (entry == NULL) {
        Py_DECREF(rank_neg);
        Py_DECREF(post_neg);
        return NULL;
    }
    PyObject *order = PyTuple_GET_ITEM(tail, 0), *prank = PyTuple_GET_ITEM(tail, 1);
    PyObject *reason = PyTuple_GET_ITEM(tail, 2);
    PyTuple_SET_ITEM(entry, 0, Py_NewRef(key));
    PyTuple_SET_ITEM(entry, 1, rank_neg);
    PyTuple_SET_ITEM(entry, 2, post_neg);
    PyTuple_SET_ITEM(entry, 3, Py_NewRef(order));
    PyTuple_SET_ITEM(entry, 4, Py_NewRef(prank));
    PyTuple_SET_ITEM(entry, 5, Py_NewRef(name));
    PyTuple_SET_ITEM(entry, 6, Py_NewRef(idx));
    PyTuple_SET_ITEM(entry, 7, Py_NewRef(version));
    PyTuple_SET_ITEM(entry, 8, Py_NewRef(reason));
    return entry;
}

/* the pair result of an item's pair shape: boxed (stored when new), else the known
 * one or run(vals, key), stored; borrowed (known holds it), NULL on an error */
static PyObject *
pair_of_item(PyObject *item, PyObject *pair_shape, PyObject *known, PyObject *boxed,
             PyObject *run, Py_ssize_t *evaluations)
{
    if (boxed != Py_None) {
        int has = PyDict_Contains(known, pair_shape);
        if (has < 0)
            return NULL;
        if (!has) {
            *evaluations += 1;
            if (PyDict_SetItem(known, pair_shape, boxed) < 0)
                return NULL;
        }
        return boxed;
    }
    PyObject *found = PyDict_GetItemWithError(known, pair_shape);
    if (found != NULL && found != Py_None)
        return found;
    if (PyErr_Occurred())
        return NULL;
    *evaluations += 1;
    PyObject *made = PyObject_CallFunctionObjArgs(run, PyTuple_GET_ITEM(item, 5),
                                                  PyTuple_GET_ITEM(item, 0), NULL);
    if (made == NULL)
        return NULL;
    int stored = PyDict_SetItem(known, pair_shape, made);
    Py_DECREF(made);
    if (stored < 0)
        return NULL;
    /* (the dict holds it; the caller holds the dict) */
    return PyDict_GetItemWithError(known, pair_shape);
}

/* an item's step after its group's test: its fit, pair result and entry (appended to
 * batch when the pair matches); 0, or -1 on an error */
static int
make_item(PyObject *item, PyObject *requests, PyObject *left, PyObject *pair_of,
          PyObject *known, PyObject *boxed, PyObject *kept, PyObject *run, PyObject *batch, PyObject *dependent, PyObject *post_key, PyObject *tail,
          Py_ssize_t *evaluations)
{
    PyObject *shape = PyTuple_GET_ITEM(item, 3);
    PyObject *have = subscript(left, shape);
    int fit = have == NULL ? -1 : fits(requests, have);
    if (fit <= 0)
        return fit;
    PyObject *pair_shape = subscript(pair_of, shape);
    PyObject *pair = pair_shape == NULL ? NULL
        : pair_of_item(item, pair_shape, known, boxed, run, evaluations);
    if (pair == NULL)
        return -1;
    Py_INCREF(pair);
    PyObject *match = pair_field(pair, 0);
    int matches = match == NULL ? -1 : PyObject_IsTrue(match);
    if (matches > 0) {
        PyObject *entry = entry_of(item, pair, kept, dependent, post_key, tail);
        if (entry == NULL || PyList_Append(batch, entry) < 0)
            matches = -1;
        Py_XDECREF(entry);
    }
    Py_DECREF(pair);
    return matches < 0 ? -1 : 0;
}

/* whether an item is at a group's first place and stops the loop there: 1 to stop, 0
 * to go on (group set to the item's key when it starts one), -1 on an error */
static int
stops(PyObject *key, PyObject **group, int bounded, Py_ssize_t room, PyObject *last,
      PyObject *batch)
{
    int other = *group == NULL ? 1 : compare(key, *group, Py_NE);
    if (other <= 0)
        return other;
    /* a group's first item: the place to stop */
    if (bounded && PyList_GET_SIZE(batch) > room)
        return 1;
    if (last != Py_None) {
        int over = compare(key, last, Py_GT);
        if (over != 0)
            return over;
    }
    Py_XSETREF(*group, Py_NewRef(key));
    return 0;
}

PyObject *
oldscan_ordered_make(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 15) {
        PyErr_SetString(PyExc_TypeError,
                        "ordered_make(items, at, room, last, requests, left, pair_of, known, "
                        "boxed, kept, run, batch, dependent, post, tail)");
        return NULL;
    }
    PyObject *items = args[0], *room_obj = args[2], *last = args[3];
    PyObject *requests = args[4], *left = args[5], *pair_of = args[6], *known = args[7];
    PyObject *boxed = args[8], *kept = args[9], *run = args[10], *batch = args[11];
    PyObject *dependent = args[12], *post_key = args[13], *tail = args[14];
    if (!PyList_CheckExact(items) || !PyList_CheckExact(requests) || !PyDict_CheckExact(left)
            || !PyDict_CheckExact(pair_of) || !PyDict_CheckExact(known)
            || !(kept == Py_None || PyDict_CheckExact(kept)) || !PyList_CheckExact(batch)
            || !PyTuple_CheckExact(tail) || PyTuple_GET_SIZE(tail) != 3) {
        PyErr_SetString(PyExc_TypeError, "ordered_make: arguments of the wrong kinds");
        return NULL;
    }
    Py_ssize_t at = PyLong_AsSsize_t(args[1]);
    if (at == -1 && PyErr_Occurred())
        return NULL;
    int bounded = room_obj != Py_None;
    Py_ssize_t room = 0;
    if (bounded) {
        room = PyLong_AsSsize_t(room_obj);
        if (room == -1 && PyErr_Occurred())
            return NULL;
    }
    Py_ssize_t evaluations = 0;
    PyObject *group = NULL;  /* (the key of the group being made, held; NULL: none yet) */
    int failed = 0;
    while (at < PyList_GET_SIZE(items)) {
        PyObject *item = PyList_GET_ITEM(items, at);
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 8) {
            PyErr_SetString(PyExc_TypeError, "ordered_make: an item is an 8-tuple");
            failed = 1;
            break;
        }
        Py_INCREF(item);  /* (held while run may run Python) */
        int stop = stops(PyTuple_GET_ITEM(item, 0), &group, bounded, room, last, batch);
        if (stop != 0) {
            Py_DECREF(item);
            failed = stop < 0;
            break;
        }
        at += 1;
        int done = make_item(item, requests, left, pair_of, known, boxed, kept, run, batch,
                             dependent, post_key, tail, &evaluations);
        Py_DECREF(item);
        if (done < 0) {
            failed = 1;
            break;
        }
    }
    Py_XDECREF(group);
    if (failed)
        return NULL;
    return Py_BuildValue("(nn)", at, evaluations);
}

PyObject *
oldscan_literal_make(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 19) {
        PyErr_SetString(PyExc_TypeError,
                        "literal_make(items, at, extra, xat, skip, group, room, last, requests, "
                        "left, pair_of, known, boxed, kept, run, batch, dependent, post, tail)");
        return NULL;
    }
    PyObject *items = args[0], *extra = args[2], *skip = args[4], *group_of = args[5];
    PyObject *room_obj = args[6], *last = args[7];
    PyObject *requests = args[8], *left = args[9], *pair_of = args[10], *known = args[11];
    PyObject *boxed = args[12], *kept = args[13], *run = args[14], *batch = args[15];
    PyObject *dependent = args[16], *post_key = args[17], *tail = args[18];
    if (!PyList_CheckExact(items) || !PyList_CheckExact(extra) || !PyList_CheckExact(requests)
            || !PyDict_CheckExact(left) || !PyDict_CheckExact(pair_of)
            || !PyDict_CheckExact(known) || !(kept == Py_None || PyDict_CheckExact(kept))
            || !PyList_CheckExact(batch) || !PyTuple_CheckExact(tail)
            || PyTuple_GET_SIZE(tail) != 3) {
        PyErr_SetString(PyExc_TypeError, "literal_make: arguments of the wrong kinds");
        return NULL;
    }
    Py_ssize_t at = PyLong_AsSsize_t(args[1]);
    if (at == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t xat = PyLong_AsSsize_t(args[3]);
    if (xat == -1 && PyErr_Occurred())
        return NULL;
    int skipping = PyObject_IsTrue(skip);
    if (skipping < 0)
        return NULL;
    int bounded = room_obj != Py_None;
    Py_ssize_t room = 0;
    if (bounded) {
        room = PyLong_AsSsize_t(room_obj);
        if (room == -1 && PyErr_Occurred())
            return NULL;
    }
    Py_ssize_t evaluations = 0;
    PyObject *group = NULL;  /* (the key of the group being made, held; NULL: none yet) */
    int failed = 0;
    for (;;) {
        Py_ssize_t end = PyList_GET_SIZE(items), xend = PyList_GET_SIZE(extra);
        if (at >= end && xat >= xend)
            break;
        /* the next item of the merge: an offset's first on equal keys */
        int taken = 1;
        if (xat < xend) {
            if (at >= end)
                taken = 0;
            else {
                PyObject *x = PyList_GET_ITEM(extra, xat), *y = PyList_GET_ITEM(items, at);
                if (!PyTuple_CheckExact(x) || PyTuple_GET_SIZE(x) != 8
                        || !PyTuple_CheckExact(y) || PyTuple_GET_SIZE(y) != 8) {
                    PyErr_SetString(PyExc_TypeError, "literal_make: an item is an 8-tuple");
                    failed = 1;
                    break;
                }
                int first = compare(PyTuple_GET_ITEM(x, 0), PyTuple_GET_ITEM(y, 0), Py_LE);
                if (first < 0) {
                    failed = 1;
                    break;
                }
                taken = !first;
            }
        }
        PyObject *item = taken ? PyList_GET_ITEM(items, at) : PyList_GET_ITEM(extra, xat);
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 8) {
            PyErr_SetString(PyExc_TypeError, "literal_make: an item is an 8-tuple");
            failed = 1;
            break;
        }
        Py_INCREF(item);  /* (held while run or group may run Python) */
        int stop = stops(PyTuple_GET_ITEM(item, 0), &group, bounded, room, last, batch);
        if (stop != 0) {
            Py_DECREF(item);
            failed = stop < 0;
            break;
        }
        if (taken) {
            at += 1;
            if (skipping) {
                /* (an offset: its own item is in extra) */
                PyObject *its = PyObject_CallOneArg(group_of, PyTuple_GET_ITEM(item, 5));
                int offset = its == NULL ? -1 : PySequence_Contains(skip, its);
                Py_XDECREF(its);
                if (offset != 0) {
                    Py_DECREF(item);
                    if (offset < 0) {
                        failed = 1;
                        break;
                    }
                    continue;
                }
            }
        }
        else
            xat += 1;
        int done = make_item(item, requests, left, pair_of, known, boxed, kept, run, batch,
                             dependent, post_key, tail, &evaluations);
        Py_DECREF(item);
        if (done < 0) {
            failed = 1;
            break;
        }
    }
    Py_XDECREF(group);
    if (failed)
        return NULL;
    return Py_BuildValue("(nnn)", at, xat, evaluations);
}
