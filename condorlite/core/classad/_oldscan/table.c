/* ClassAd._attrs: a data descriptor over the hidden member ClassAd._tbl (table.h).
 *
 * The member holds the ad's table, the dict lower-case name -> (spelling, expr), or,
 * for an ad the compiled scanner read inside a run of ads of the same names (ads.c),
 * the lazy form (base, pair, ...): the run's base dict (a private copy no ad holds, so
 * nothing changes it) and the ad's own pairs at the run mark's positions. Reading
 * `_attrs` returns a whole dict: the member's value when it is one (the fast path: one
 * type test more than a slot's read), else the lazy form made whole, a copy of the
 * base with the own pairs set (the very dict the scanner made before: same keys, key
 * order, values and table size), stored in the member so that it is made once. So
 * every Python reader of `_attrs` sees a dict, as before; C readers by offset
 * (oldscan.gather, oldscan.changes) read the member and handle the lazy form
 * (table_lookup) or make it whole (table_whole). Writing `_attrs` writes the member.
 *
 * Why: 98.7 % of a 10k job queue's dicts are built and never read but for one name
 * (benchmarks/RESULTS.md, session 28, stor28): a tuple of nine pairs instead of an
 * 85-entry dict per job. */

#include "table.h"

#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyTypeObject *owner;  /* the type whose member it reads (strong) */
    Py_ssize_t offset;    /* the member's offset in an instance */
} TableSlot;

/* The dict the lazy form `lazy` stands for, a new reference (NULL with an exception
 * when `lazy` is not of the form). */
static PyObject *
lazy_dict(PyObject *lazy)
{
    Py_ssize_t n = PyTuple_GET_SIZE(lazy);
    PyObject *base = n > 0 ? PyTuple_GET_ITEM(lazy, 0) : NULL;
    if (base == NULL || !PyDict_CheckExact(base)) {
        PyErr_SetString(PyExc_TypeError, "an ad's lazy table must be (dict, pair, ...)");
        return NULL;
    }
    PyObject *attrs = PyDict_Copy(base);
    if (attrs == NULL)
        return NULL;
    for (Py_ssize_t i = 1; i < n; i++) {
        PyObject *pair = PyTuple_GET_ITEM(lazy, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "an ad's lazy table's pairs must be 2-tuples");
            Py_DECREF(attrs);
            return NULL;
        }
        if (PyDict_SetItem(attrs, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)) < 0) {
            Py_DECREF(attrs);
            return NULL;
        }
    }
    return attrs;
}

PyObject *
table_whole(PyObject **at)
{
    PyObject *value = *at;
    if (value == NULL || !TABLE_IS_LAZY(value)) {
        Py_XINCREF(value);
        return value;
    }
    PyObject *attrs = lazy_dict(value);
    if (attrs == NULL)
        return NULL;
    Py_INCREF(attrs);
    Py_SETREF(*at, attrs);
    return attrs;
}

PyObject *
table_lookup(PyObject *table, PyObject *key)
{
    if (!TABLE_IS_LAZY(table))
        return PyDict_GetItemWithError(table, key);
    Py_ssize_t n = PyTuple_GET_SIZE(table);
    PyObject *base = n > 0 ? PyTuple_GET_ITEM(table, 0) : NULL;
    if (base == NULL || !PyDict_CheckExact(base)) {
        PyErr_SetString(PyExc_TypeError, "an ad's lazy table must be (dict, pair, ...)");
        return NULL;
    }
    for (Py_ssize_t i = 1; i < n; i++) {
        PyObject *pair = PyTuple_GET_ITEM(table, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "an ad's lazy table's pairs must be 2-tuples");
            return NULL;
        }
        PyObject *name = PyTuple_GET_ITEM(pair, 0);
        if (name == key)
            return PyTuple_GET_ITEM(pair, 1);
        /* (the names are str, as the keys the dict would hold: equal is as a dict
         * lookup finds; two interned strings that are not one object differ) */
        if (PyUnicode_CheckExact(name) && PyUnicode_CheckExact(key)
                && !(PyUnicode_CHECK_INTERNED(name) && PyUnicode_CHECK_INTERNED(key))
                && PyUnicode_Compare(name, key) == 0)
            return PyTuple_GET_ITEM(pair, 1);
    }
    return PyDict_GetItemWithError(base, key);
}

/* The member's address in obj, or NULL with an exception when obj is not of the
 * owner type. */
static PyObject **
slot_of(TableSlot *d, PyObject *obj)
{
    if (Py_TYPE(obj) != d->owner && !PyType_IsSubtype(Py_TYPE(obj), d->owner)) {
        PyErr_Format(PyExc_TypeError, "_attrs of a %.100s, not a %.100s",
                     d->owner->tp_name, Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return (PyObject **)((char *)obj + d->offset);
}

static PyObject *
tableslot_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    PyObject **at = slot_of((TableSlot *)self, obj);
    if (at == NULL)
        return NULL;
    PyObject *value = *at;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_attrs");
        return NULL;
    }
    if (!TABLE_IS_LAZY(value)) {
        Py_INCREF(value);
        return value;
    }
    return table_whole(at);
}

static int
tableslot_set(PyObject *self, PyObject *obj, PyObject *value)
{
    PyObject **at = slot_of((TableSlot *)self, obj);
    if (at == NULL)
        return -1;
    if (value == NULL && *at == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_attrs");
        return -1;
    }
    Py_XINCREF(value);
    Py_XSETREF(*at, value);
    return 0;
}

/* entry(ad, key): ad's entry for key (a lower-case name), or None, read from its
 * table whole or lazy without making it whole (decoding reads each job's ProcId so). */
static PyObject *
tableslot_entry(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "entry(ad, key: str)");
        return NULL;
    }
    PyObject **at = slot_of((TableSlot *)self, args[0]);
    if (at == NULL)
        return NULL;
    if (*at == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_attrs");
        return NULL;
    }
    PyObject *table = *at;
    if (!PyDict_Check(table) && !TABLE_IS_LAZY(table))  /* (read as Python would) */
        return PyObject_CallMethod(table, "get", "O", args[1]);
    Py_INCREF(table);
    PyObject *entry = table_lookup(table, args[1]);
    if (entry == NULL) {
        Py_DECREF(table);
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    Py_INCREF(entry);
    Py_DECREF(table);
    return entry;
}

/* is_lazy(ad): whether ad's table is in the lazy form (for the tests). */
static PyObject *
tableslot_is_lazy(PyObject *self, PyObject *obj)
{
    PyObject **at = slot_of((TableSlot *)self, obj);
    if (at == NULL)
        return NULL;
    return PyBool_FromLong(*at != NULL && TABLE_IS_LAZY(*at));
}

static PyMethodDef tableslot_methods[] = {
    {"entry", (PyCFunction)(void (*)(void))tableslot_entry, METH_FASTCALL,
     "entry(ad, key): ad's entry for the lower-case name key, or None, without making "
     "a lazy table whole."},
    {"is_lazy", (PyCFunction)tableslot_is_lazy, METH_O,
     "is_lazy(ad): whether ad's table is still in the lazy form."},
    {NULL, NULL, 0, NULL},
};

static int
tableslot_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((TableSlot *)self)->owner);
    return 0;
}

static int
tableslot_clear(PyObject *self)
{
    Py_CLEAR(((TableSlot *)self)->owner);
    return 0;
}

static void
tableslot_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    tableslot_clear(self);
    PyObject_GC_Del(self);
}

PyTypeObject TableSlotType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "condorlite.core.classad._oldscan.TableSlot",
    .tp_basicsize = sizeof(TableSlot),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "An ad's table (ClassAd._attrs) over a hidden member: a whole dict on "
              "every read (see table.c).",
    .tp_traverse = tableslot_traverse,
    .tp_clear = tableslot_clear,
    .tp_dealloc = tableslot_dealloc,
    .tp_methods = tableslot_methods,
    .tp_descr_get = tableslot_get,
    .tp_descr_set = tableslot_set,
};

PyObject *
oldscan_table_slot(PyObject *module, PyObject *member)
{
    if (!PyObject_TypeCheck(member, &PyMemberDescr_Type)
            || ((PyMemberDescrObject *)member)->d_member->type != T_OBJECT_EX) {
        PyErr_SetString(PyExc_TypeError, "table_slot(member): a type's slot");
        return NULL;
    }
    TableSlot *d = PyObject_GC_New(TableSlot, &TableSlotType);
    if (d == NULL)
        return NULL;
    PyTypeObject *owner = ((PyDescrObject *)member)->d_type;
    Py_INCREF(owner);
    d->owner = owner;
    d->offset = ((PyMemberDescrObject *)member)->d_member->offset;
    PyObject_GC_Track(d);
    return (PyObject *)d;
}
