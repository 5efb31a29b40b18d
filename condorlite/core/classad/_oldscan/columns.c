/* changes(tables, keys, marks=None) -> (cuts, values): `tables` a list of dicts (the
 * rows), `keys` a list or tuple of str. `cuts`: the rows r >= 1 where the value of some
 * key is not the very object (identity; an absent key counts as a value of its own) it
 * is in row r - 1, ascending. `values`: the value of each key at row 0, then, at each
 * cut, the value of each key that changed there, row by row (None for an absent key):
 * every distinct value of a key's column is among them, at row 0 or where it starts.
 *
 * A table may be an ad's lazy table (table.h, a run's ad read by oldscan.gather): its
 * names are looked up in its own pairs, then its base, as in the dict it stands for.
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

#include <structmember.h>

#include "table.h"

/* Append the row number ``row`` to the list ``cuts``: 0, or -1 with an exception. */
static int
append_row(PyObject *cuts, Py_ssize_t row)
{
    PyObject *number = PyLong_FromSsize_t(row);
    if (number == NULL)
        return -1;
    int failed = PyList_Append(cuts, number);
    Py_DECREF(number);
    return failed;
}

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
        if (!PyDict_Check(table) && !TABLE_IS_LAZY(table)) {
            PyErr_SetString(PyExc_TypeError, "changes: tables must be dicts");
            goto fail;
        }
        Py_INCREF(table);  /* (the list may change under a key's __eq__) */
        int cut = 0;
        for (Py_ssize_t i = 0; i < k; i++) {
            PyObject *value = table_lookup(table, names[i]);
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
            if (append_row(cuts, row) < 0)
                goto fail;
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

/* gather(rows, row_members, ad_type, ad_members) -> (tables, marks, ids) or None:
 * `rows` a list of objects of one slotted type (model.Job), `row_members` the
 * member descriptors of their ad and id, `ad_members` those of `ad_type`'s table and
 * reader mark (ClassAd._attrs, ClassAd.layout). For each row, its ad's table, its run
 * mark (the reader mark when true, else the ad itself: `ad.layout or ad`) and its id,
 * in three lists. The table is the member's value: an ad's lazy table (table.h) is
 * made whole where its row starts a run within `rows` (row 0, or a mark not the row
 * before's: the grouping walks those tables' names, significant._one_per_run) and
 * left lazy elsewhere (oldscan.changes reads it as it is).
 * None when some row is not exactly of the row members' type or its
 * ad not exactly of `ad_type` or of its lazy type (table_lazy_of: the same members)
 * (the caller reads those rows its own way). One C pass instead of five Python passes over the
 * cycle's idle jobs (matching/significant.py). */
static PyObject *
member_of(PyObject *descr, PyObject *obj)
{
    return Py_TYPE(descr)->tp_descr_get(descr, obj, (PyObject *)Py_TYPE(obj));
}

/* The arguments gather and runs share, checked: (rows: list, row_members: (ad, id),
 * ad_type: type, ad_members: (table, mark)), the four members slot descriptors, put
 * in `descrs` in that order; -1 with TypeError naming `name` otherwise. */
static int
member_args(PyObject *const *args, Py_ssize_t nargs, const char *name, PyObject **descrs)
{
    if (nargs != 4 || !PyList_CheckExact(args[0]) || !PyTuple_CheckExact(args[1])
            || PyTuple_GET_SIZE(args[1]) != 2 || !PyType_Check(args[2])
            || !PyTuple_CheckExact(args[3]) || PyTuple_GET_SIZE(args[3]) != 2) {
        PyErr_Format(PyExc_TypeError,
                     "%s(rows: list, row_members: (ad, id), ad_type: type, "
                     "ad_members: (table, mark))", name);
        return -1;
    }
    descrs[0] = PyTuple_GET_ITEM(args[1], 0);
    descrs[1] = PyTuple_GET_ITEM(args[1], 1);
    descrs[2] = PyTuple_GET_ITEM(args[3], 0);
    descrs[3] = PyTuple_GET_ITEM(args[3], 1);
    for (int i = 0; i < 4; i++) {
        if (!PyObject_TypeCheck(descrs[i], &PyMemberDescr_Type)) {
            PyErr_Format(PyExc_TypeError, "%s: members must be slots", name);
            return -1;
        }
    }
    return 0;
}

PyObject *
oldscan_gather(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *descrs[4];
    if (member_args(args, nargs, "gather", descrs) < 0)
        return NULL;
    PyObject *rows = args[0];
    PyTypeObject *ad_type = (PyTypeObject *)args[2];
    Py_ssize_t n = PyList_GET_SIZE(rows);
    PyObject *tables = PyList_New(n);
    PyObject *marks = PyList_New(n);
    PyObject *ids = PyList_New(n);
    if (tables == NULL || marks == NULL || ids == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* (the row is held while read: a descriptor's get cannot run Python code for
         * a slot, but the list is the caller's) */
        if (i >= PyList_GET_SIZE(rows)) {
            /* (a mark's truth test ran code that shortened the list) */
            PyErr_SetString(PyExc_RuntimeError, "gather: the rows changed size");
            goto fail;
        }
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (Py_TYPE(row) != PyDescr_TYPE(descrs[0]) || Py_TYPE(row) != PyDescr_TYPE(descrs[1]))
            goto none;
        Py_INCREF(row);
        PyObject *ad = member_of(descrs[0], row);
        PyObject *id = ad == NULL ? NULL : member_of(descrs[1], row);
        Py_DECREF(row);
        if (id == NULL) {
            Py_XDECREF(ad);
            goto fail;
        }
        PyList_SET_ITEM(ids, i, id);
        if ((Py_TYPE(ad) != ad_type && !table_lazy_of(Py_TYPE(ad), ad_type))
                || PyDescr_TYPE(descrs[2]) != ad_type
                || PyDescr_TYPE(descrs[3]) != ad_type) {
            Py_DECREF(ad);
            goto none;
        }
        PyObject *table = member_of(descrs[2], ad);
        PyObject *mark = table == NULL ? NULL : member_of(descrs[3], ad);
        if (mark == NULL) {
            Py_XDECREF(table);
            Py_DECREF(ad);
            goto fail;
        }
        int truth = PyObject_IsTrue(mark);
        if (truth < 0) {
            Py_DECREF(mark);
            Py_DECREF(table);
            Py_DECREF(ad);
            goto fail;
        }
        if (TABLE_IS_LAZY(table)
                && (i == 0 || (truth ? mark : ad) != PyList_GET_ITEM(marks, i - 1))) {
            PyObject *whole = table_whole(
                (PyObject **)((char *)ad + ((PyMemberDescrObject *)descrs[2])->d_member->offset));
            Py_DECREF(table);
            if (whole == NULL) {
                Py_DECREF(mark);
                Py_DECREF(ad);
                goto fail;
            }
            table = whole;
        }
        if (truth) {
            Py_DECREF(ad);
        } else {
            Py_DECREF(mark);
            mark = ad;
        }
        PyList_SET_ITEM(tables, i, table);
        PyList_SET_ITEM(marks, i, mark);
    }
    return Py_BuildValue("(NNN)", tables, marks, ids);
none:
    Py_DECREF(tables);
    Py_DECREF(marks);
    Py_DECREF(ids);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(tables);
    Py_XDECREF(marks);
    Py_XDECREF(ids);
    return NULL;
}

/* descents(rows, members) -> list: `rows` a list of objects of one slotted type
 * (model.Job), `members` a tuple of its member descriptors. The rows r >= 1 whose
 * members' values, read as one tuple, are <= the row before's (Python's tuple
 * comparison: the first member whose values are not == decides by <=; all equal is
 * <=), ascending, after 0. Where a row is not exactly of the members' type, its values
 * are read through the descriptors' get as Python reads them. For the cuts of the
 * queue order's blocks (matching/queue_blocks.py): no tuple built per row. */
/* A member descriptor's value on `row` (a new reference, NULL with an exception):
 * read at the member's offset where `row` is exactly of the descriptor's type and the
 * member an object slot that is set, else through the descriptor's get (which raises
 * as Python would). */
static PyObject *
member_value(PyObject *descr, PyObject *row)
{
    PyMemberDef *def = ((PyMemberDescrObject *)descr)->d_member;
    if (Py_TYPE(row) == PyDescr_TYPE(descr) && def->type == T_OBJECT_EX
            && !(def->flags & READ_RESTRICTED)) {
        PyObject *value = *(PyObject **)((char *)row + def->offset);
        if (value != NULL) {
            Py_INCREF(value);
            return value;
        }
    }
    return Py_TYPE(descr)->tp_descr_get(descr, row, (PyObject *)Py_TYPE(row));
}

static PyObject *
values_of(PyObject *members, PyObject *row, PyObject **out)
{
    Py_ssize_t m = PyTuple_GET_SIZE(members);
    for (Py_ssize_t i = 0; i < m; i++) {
        out[i] = member_value(PyTuple_GET_ITEM(members, i), row);
        if (out[i] == NULL) {
            while (i > 0)
                Py_DECREF(out[--i]);
            return NULL;
        }
    }
    return row;
}

/* runs(rows, row_members, ad_type, ad_members) -> (starts, tables, marks, ids) or
 * None: gather's rows read as the reader's runs. A row starts a run where its run mark
 * (the reader mark when true, else the ad itself, as gather gives it) is not the very
 * mark of the row before (row 0 always). `starts` the first row of each run,
 * ascending; `tables` the table of each run's first row (made whole where lazy, as
 * gather makes a run's first); `marks` each run's mark; `ids` each row's id. A row
 * after a run's first is read for its id and mark alone: its table is not taken (its
 * reference count not touched, no list slot per row for it), which is what the
 * grouping's passes over a cluster's jobs leave unread (matching/significant.py).
 * None, and the same errors, where gather gives them. */
PyObject *
oldscan_runs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *descrs[4];
    if (member_args(args, nargs, "runs", descrs) < 0)
        return NULL;
    PyObject *rows = args[0];
    PyTypeObject *ad_type = (PyTypeObject *)args[2];
    if (PyDescr_TYPE(descrs[2]) != ad_type || PyDescr_TYPE(descrs[3]) != ad_type)
        Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(rows);
    PyObject *starts = PyList_New(0);
    PyObject *tables = PyList_New(0);
    PyObject *marks = PyList_New(0);
    PyObject *ids = PyList_New(n);
    /* the mark of the run under way: borrowed from `marks`, which holds it */
    PyObject *mark_before = NULL;
    if (starts == NULL || tables == NULL || marks == NULL || ids == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i >= PyList_GET_SIZE(rows)) {
            /* (a mark's truth test ran code that shortened the list) */
            PyErr_SetString(PyExc_RuntimeError, "runs: the rows changed size");
            goto fail;
        }
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (Py_TYPE(row) != PyDescr_TYPE(descrs[0]) || Py_TYPE(row) != PyDescr_TYPE(descrs[1]))
            goto none;
        Py_INCREF(row);
        PyObject *ad = member_value(descrs[0], row);
        PyObject *id = ad == NULL ? NULL : member_value(descrs[1], row);
        Py_DECREF(row);
        if (id == NULL) {
            Py_XDECREF(ad);
            goto fail;
        }
        PyList_SET_ITEM(ids, i, id);
        if (Py_TYPE(ad) != ad_type && !table_lazy_of(Py_TYPE(ad), ad_type)) {
            Py_DECREF(ad);
            goto none;
        }
        PyObject *mark = member_value(descrs[3], ad);
        if (mark == NULL) {
            Py_DECREF(ad);
            goto fail;
        }
        /* (a set's truth without a call: the readers' marks are sets) */
        int truth = PyAnySet_CheckExact(mark) ? PySet_GET_SIZE(mark) > 0
                    : mark == Py_None ? 0 : PyObject_IsTrue(mark);
        if (truth < 0) {
            Py_DECREF(mark);
            Py_DECREF(ad);
            goto fail;
        }
        PyObject *run_mark = truth ? mark : ad;
        if (i > 0 && run_mark == mark_before) {
            Py_DECREF(mark);
            Py_DECREF(ad);
            continue;
        }
        PyObject *table = member_value(descrs[2], ad);
        if (table != NULL && TABLE_IS_LAZY(table)) {
            PyObject *whole = table_whole(
                (PyObject **)((char *)ad + ((PyMemberDescrObject *)descrs[2])->d_member->offset));
            Py_DECREF(table);
            table = whole;
        }
        int failed = table == NULL || append_row(starts, i) < 0
                     || PyList_Append(tables, table) < 0 || PyList_Append(marks, run_mark) < 0;
        Py_XDECREF(table);
        Py_DECREF(mark);
        Py_DECREF(ad);
        if (failed)
            goto fail;
        mark_before = PyList_GET_ITEM(marks, PyList_GET_SIZE(marks) - 1);
    }
    return Py_BuildValue("(NNNN)", starts, tables, marks, ids);
none:
    Py_DECREF(starts);
    Py_DECREF(tables);
    Py_DECREF(marks);
    Py_DECREF(ids);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(starts);
    Py_XDECREF(tables);
    Py_XDECREF(marks);
    Py_XDECREF(ids);
    return NULL;
}

/* One step of Python's tuple comparison, a member's values `a` (this row's) and `b`
 * (the row before's): 1 when a == b (the next member decides), else 0 with *le set to
 * whether a <= b; -1 with an exception. The very object, two exact ints that fit a
 * long long and two exact strs are compared here as Python compares them (no call
 * through the rich comparison, about a third of the pass's instructions when every
 * member went through it: RESULTS, session 36); anything else by
 * PyObject_RichCompareBool, == then <=. */
static int
equal_or_le(PyObject *a, PyObject *b, int *le)
{
    if (a == b)
        return 1;
    if (PyLong_CheckExact(a) && PyLong_CheckExact(b)) {
        int over_a, over_b;
        long long x = PyLong_AsLongLongAndOverflow(a, &over_a);
        long long y = PyLong_AsLongLongAndOverflow(b, &over_b);
        if (!over_a && !over_b) {
            if (x == y)
                return 1;
            *le = x < y;
            return 0;
        }
    }
    else if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b)) {
        int order = PyUnicode_Compare(a, b);
        if (order == -1 && PyErr_Occurred())
            return -1;
        if (order == 0)
            return 1;
        *le = order < 0;
        return 0;
    }
    int equal = PyObject_RichCompareBool(a, b, Py_EQ);
    if (equal != 0)
        return equal;
    *le = PyObject_RichCompareBool(a, b, Py_LE);
    return *le < 0 ? -1 : 0;
}

PyObject *
oldscan_descents(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyTuple_CheckExact(args[1])
            || PyTuple_GET_SIZE(args[1]) < 1) {
        PyErr_SetString(PyExc_TypeError, "descents(rows: list, members: tuple)");
        return NULL;
    }
    PyObject *rows = args[0], *members = args[1];
    Py_ssize_t m = PyTuple_GET_SIZE(members);
    for (Py_ssize_t i = 0; i < m; i++) {
        if (!PyObject_TypeCheck(PyTuple_GET_ITEM(members, i), &PyMemberDescr_Type)) {
            PyErr_SetString(PyExc_TypeError, "descents: members must be slots");
            return NULL;
        }
    }
    PyObject **before = PyMem_Calloc(2 * m, sizeof(PyObject *));
    PyObject *cuts = PyList_New(0);
    if (before == NULL || cuts == NULL)
        goto fail;
    PyObject **now = before + m;
    int have = 0;  /* (`before` holds the row before's values) */
    for (Py_ssize_t row = 0; row < PyList_GET_SIZE(rows); row++) {
        PyObject *obj = PyList_GET_ITEM(rows, row);
        Py_INCREF(obj);
        PyObject *read = values_of(members, obj, now);
        Py_DECREF(obj);
        if (read == NULL)
            goto fail;
        int cut = !have;  /* (row 0 is always a cut) */
        if (have) {
            cut = 1;  /* all equal: <= */
            for (Py_ssize_t i = 0; i < m; i++) {
                int equal = equal_or_le(now[i], before[i], &cut);
                if (equal < 0)
                    goto fail_values;
                if (!equal)
                    break;
            }
        }
        for (Py_ssize_t i = 0; i < m; i++) {
            Py_XDECREF(before[i]);
            before[i] = now[i];
            now[i] = NULL;
        }
        have = 1;
        if (cut) {
            if (append_row(cuts, row) < 0)
                goto fail;
        }
    }
    for (Py_ssize_t i = 0; i < m; i++)
        Py_XDECREF(before[i]);
    PyMem_Free(before);
    return cuts;
fail_values:
    for (Py_ssize_t i = 0; i < m; i++)
        Py_XDECREF(now[i]);
fail:
    if (before != NULL) {
        for (Py_ssize_t i = 0; i < m; i++)
            Py_XDECREF(before[i]);
        PyMem_Free(before);
    }
    Py_XDECREF(cuts);
    return NULL;
}

/* expressions(tables, keys, marks, literal) -> list: `tables` a list of dicts (or
 * lazy tables, as in changes), `keys` a list or tuple of str, `marks` each row's run
 * mark as in changes (or None), `literal` a type. The distinct values (by identity,
 * in the order first seen) of the keys' columns that are present and whose item 1 is
 * not exactly of type `literal`: the entries ((spelling, expression) pairs) that may
 * refer to names, the slots' own numbers left out.
 *
 * What `changes`' values less the literals and the absent, deduplicated, would give,
 * without a list of every changed value (the slots' side of the grouping,
 * matching/columns.py: a slot's own numbers, KFlops and the like, are nearly every
 * value that changes from one slot to the next, and refer to no name). A value that is
 * the very object of the row before's for its key is not looked at again; in a run's
 * rows after its first (the row before's very mark, a set), only the keys in the
 * mark are read: the others hold the row before's values. */
PyObject *
oldscan_expressions(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyList_CheckExact(args[0])
            || !(PyList_CheckExact(args[1]) || PyTuple_CheckExact(args[1]))
            || (args[2] != Py_None
                && !(PyList_CheckExact(args[2])
                     && PyList_GET_SIZE(args[2]) == PyList_GET_SIZE(args[0])))
            || !PyType_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError,
                        "expressions(tables: list, keys: list | tuple, marks: list | None, "
                        "literal: type)");
        return NULL;
    }
    PyObject *tables = args[0];
    PyObject *marks = args[2] != Py_None ? args[2] : NULL;
    PyTypeObject *literal = (PyTypeObject *)args[3];
    PyObject *mark_before = NULL;  /* (a strong reference) */
    PyObject *keys = PySequence_Fast(args[1], "expressions: keys");
    if (keys == NULL)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(keys);
    PyObject **names = PySequence_Fast_ITEMS(keys);
    PyObject *out = PyList_New(0);
    PyObject *seen = PySet_New(NULL);  /* the ids of the values in out */
    /* before[i]: key i's value in the row before (strong), NULL before row 0;
     * in_mark[i]: whether key i is in mark_before (read in a run's later rows) */
    PyObject **before = PyMem_Calloc(k > 0 ? k : 1, sizeof(PyObject *));
    char *in_mark = PyMem_Calloc(k > 0 ? k : 1, 1);
    if (out == NULL || seen == NULL || before == NULL || in_mark == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < k; i++) {
        if (!PyUnicode_CheckExact(names[i])) {
            PyErr_SetString(PyExc_TypeError, "expressions: keys must be str");
            goto fail;
        }
    }
    for (Py_ssize_t row = 0; row < PyList_GET_SIZE(tables); row++) {
        int in_run = 0;  /* (a run's later row: only the keys in its mark are read) */
        if (marks != NULL && row < PyList_GET_SIZE(marks)) {
            PyObject *mark = PyList_GET_ITEM(marks, row);
            if (mark == mark_before) {
                in_run = PyAnySet_CheckExact(mark);
            }
            else {
                Py_INCREF(mark);
                Py_XSETREF(mark_before, mark);
                for (Py_ssize_t i = 0; PyAnySet_CheckExact(mark) && i < k; i++) {
                    int known = PySet_Contains(mark, names[i]);
                    if (known < 0)
                        goto fail;
                    in_mark[i] = (char)known;
                }
            }
        }
        PyObject *table = PyList_GET_ITEM(tables, row);
        if (!PyDict_Check(table) && !TABLE_IS_LAZY(table)) {
            PyErr_SetString(PyExc_TypeError, "expressions: tables must be dicts");
            goto fail;
        }
        Py_INCREF(table);  /* (the list may change under a key's __eq__) */
        for (Py_ssize_t i = 0; i < k; i++) {
            if (in_run && !in_mark[i])
                continue;
            PyObject *value = table_lookup(table, names[i]);
            if (value == NULL && PyErr_Occurred()) {
                Py_DECREF(table);
                goto fail;
            }
            if (value == NULL)
                value = Py_None;
            if (value == before[i])
                continue;
            Py_INCREF(value);
            Py_XSETREF(before[i], value);
            if (value == Py_None
                    || (PyTuple_Check(value) && PyTuple_GET_SIZE(value) > 1
                        && Py_TYPE(PyTuple_GET_ITEM(value, 1)) == literal))
                continue;
            PyObject *id = PyLong_FromVoidPtr(value);
            if (id == NULL) {
                Py_DECREF(table);
                goto fail;
            }
            int known = PySet_Contains(seen, id);
            if (known == 0)
                known = PySet_Add(seen, id) < 0 ? -1 : PyList_Append(out, value);
            Py_DECREF(id);
            if (known < 0) {
                Py_DECREF(table);
                goto fail;
            }
        }
        Py_DECREF(table);
    }
    for (Py_ssize_t i = 0; i < k; i++)
        Py_XDECREF(before[i]);
    PyMem_Free(before);
    PyMem_Free(in_mark);
    Py_DECREF(keys);
    Py_DECREF(seen);
    Py_XDECREF(mark_before);
    return out;
fail:
    if (before != NULL) {
        for (Py_ssize_t i = 0; i < k; i++)
            Py_XDECREF(before[i]);
        PyMem_Free(before);
    }
    PyMem_Free(in_mark);
    Py_XDECREF(out);
    Py_XDECREF(seen);
    Py_DECREF(keys);
    Py_XDECREF(mark_before);
    return NULL;
}

/* select(rows, member, value) -> list or None: `rows` a list, `member` a member
 * descriptor (a slot of the rows' type). The rows whose member's value == `value`
 * (Python's truth of ==, the very object first), in order; None when some row is not
 * exactly of the member's type (the caller reads those rows its own way, as gather's
 * do). For the cycle's idle jobs (matching/columns.py): one C loop, the member read
 * at its offset, not a list comprehension's attribute read and compare per job. */
PyObject *
oldscan_select(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyList_CheckExact(args[0])
            || !PyObject_TypeCheck(args[1], &PyMemberDescr_Type)) {
        PyErr_SetString(PyExc_TypeError, "select(rows: list, member: a slot, value)");
        return NULL;
    }
    PyObject *rows = args[0], *member = args[1], *wanted = args[2];
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(rows); i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (Py_TYPE(row) != PyDescr_TYPE(member)) {
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
        Py_INCREF(row);  /* (the list may change under a value's __eq__) */
        PyObject *value = member_value(member, row);
        int equal = -1;
        if (value != NULL) {
            equal = value == wanted ? 1 : PyObject_RichCompareBool(value, wanted, Py_EQ);
            Py_DECREF(value);
        }
        if (equal > 0)
            equal = PyList_Append(out, row) < 0 ? -1 : 1;
        Py_DECREF(row);
        if (equal < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}
