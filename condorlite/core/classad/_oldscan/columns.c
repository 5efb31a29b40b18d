/* changes(tables, keys, marks=None) -> (cuts, values): `tables` a list of dicts (the
 * rows), `keys` a list or tuple of str. `cuts`: the rows r >= 1 where the value of some
 * key is not the very object (identity; an absent key counts as a value of its own) it
 * is in row r - 1, ascending. `values`: the value of each key at row 0, then, at each
 * cut, the value of each key that changed there, row by row (None for an absent key):
 * every distinct value of a key's column is among them, at row 0 or where it starts.
 *
 * `marks` (a list as long as `tables`, or None): each row's run mark. Where a row's
 * mark is a set and the very mark of the row before, the two rows are of one run of
 * the reader (ClassAd.layout, ads.c): they hold the same value for every key not in
 * the set, so when no key is in it the row is not read at all (not a cut). Any other
 * mark (the ad itself, for an ad without one) is read as usual.
 *
 * For the grouping of a cycle's jobs and the reading of its slots' columns
 * (matching/significant.py): one C loop a row instead of a tuple built and compared
 * per row in Python, and a cluster's jobs after its first read as one. The previous
 * row's values are held with strong references, so a dict changed by a key's __eq__
 * mid-loop (impossible for the str-keyed tables of ClassAd-lite, possible for any
 * dict) cannot leave a dangling pointer. */

#include "columns.h"

PyObject *
oldscan_changes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2 || nargs > 3 || !PyList_CheckExact(args[0])
            || !(PyList_CheckExact(args[1]) || PyTuple_CheckExact(args[1]))
            || (nargs == 3 && args[2] != Py_None
                && !(PyList_CheckExact(args[2])
                     && PyList_GET_SIZE(args[2]) == PyList_GET_SIZE(args[0])))) {
        PyErr_SetString(PyExc_TypeError,
                        "changes(tables: list, keys: list | tuple, marks: list | None)");
        return NULL;
    }
    PyObject *tables = args[0];
    PyObject *marks = nargs == 3 && args[2] != Py_None ? args[2] : NULL;
    PyObject *mark_before = NULL;  /* (a strong reference) */
    int skips = 0;                 /* rows of mark_before's run after its first are skipped */
    PyObject *keys = PySequence_Fast(args[1], "changes: keys");
    if (keys == NULL)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(keys);
    PyObject **names = PySequence_Fast_ITEMS(keys);
    PyObject *cuts = PyList_New(0);
    PyObject *values = PyList_New(0);
    PyObject **before = PyMem_Calloc(k > 0 ? k : 1, sizeof(PyObject *));
    if (cuts == NULL || values == NULL || before == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < k; i++) {
        if (!PyUnicode_CheckExact(names[i])) {
            PyErr_SetString(PyExc_TypeError, "changes: keys must be str");
            goto fail;
        }
    }
    for (Py_ssize_t row = 0; row < PyList_GET_SIZE(tables); row++) {
        if (marks != NULL && row < PyList_GET_SIZE(marks)) {
            PyObject *mark = PyList_GET_ITEM(marks, row);
            if (mark == mark_before) {
                if (skips)
                    continue;
            }
            else {
                Py_INCREF(mark);
                Py_XSETREF(mark_before, mark);
                skips = PyAnySet_CheckExact(mark);
                for (Py_ssize_t i = 0; skips && i < k; i++) {
                    int known = PySet_Contains(mark, names[i]);
                    if (known < 0)
                        goto fail;
                    skips = !known;
                }
            }
        }
        PyObject *table = PyList_GET_ITEM(tables, row);
        if (!PyDict_Check(table)) {
            PyErr_SetString(PyExc_TypeError, "changes: tables must be dicts");
            goto fail;
        }
        Py_INCREF(table);  /* (the list may change under a key's __eq__) */
        int cut = 0;
        for (Py_ssize_t i = 0; i < k; i++) {
            PyObject *value = PyDict_GetItemWithError(table, names[i]);
            if (value == NULL && PyErr_Occurred()) {
                Py_DECREF(table);
                goto fail;
            }
            if (value == NULL)
                value = Py_None;
            if (row > 0 && value == before[i])
                continue;
            if (PyList_Append(values, value) < 0) {
                Py_DECREF(table);
                goto fail;
            }
            Py_INCREF(value);
            Py_XSETREF(before[i], value);
            cut = 1;
        }
        Py_DECREF(table);
        if (cut && row > 0) {
            PyObject *number = PyLong_FromSsize_t(row);
            if (number == NULL || PyList_Append(cuts, number) < 0) {
                Py_XDECREF(number);
                goto fail;
            }
            Py_DECREF(number);
        }
    }
    for (Py_ssize_t i = 0; i < k; i++)
        Py_XDECREF(before[i]);
    PyMem_Free(before);
    Py_DECREF(keys);
    Py_XDECREF(mark_before);
    PyObject *out = PyTuple_Pack(2, cuts, values);
    Py_DECREF(cuts);
    Py_DECREF(values);
    return out;
fail:
    if (before != NULL) {
        for (Py_ssize_t i = 0; i < k; i++)
            Py_XDECREF(before[i]);
        PyMem_Free(before);
    }
    Py_XDECREF(cuts);
    Py_XDECREF(values);
    Py_DECREF(keys);
    Py_XDECREF(mark_before);
    return NULL;
}
