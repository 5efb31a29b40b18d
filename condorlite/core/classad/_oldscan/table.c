/* LazyClassAd._attrs: a data descriptor over ClassAd's member `_attrs` (table.h).
 *
 * A ClassAd's member `_attrs` holds its table, the dict lower-case name -> (spelling,
 * expr), and ClassAd reads it as a plain slot (CPython specialises that read: the hot
 * readers, evaluator, scope and programs, read `ad._attrs` for every attribute). An ad
 * the compiled scanner read inside a run of ads of the same names (ads.c) is made as
 * the registered *lazy type* (ad.py's LazyClassAd: a subclass of ClassAd of the very
 * same layout, no field of its own) with the lazy form (base, pair, ...) in the same
 * member: the run's base dict (a private copy no ad holds, so nothing changes it) and
 * the ad's own pairs at the run mark's positions. The lazy type's `_attrs` is this
 * descriptor: the first read makes the table whole, a copy of the base with the own
 * pairs set (the very dict the scanner made before: same keys, key order, values and
 * table size), stores it in the member, and turns the ad into a ClassAd (its type set
 * to the whole type, as `ad.__class__ = ClassAd` would: legal because the layouts
 * are the same, checked at registration), so that every later read is the plain
 * slot's. Writing `_attrs` writes the member and turns the ad into a ClassAd too
 * (unless what is written is itself a lazy form). Hence the invariant: an ad of the
 * whole type holds a whole table; only an ad of the lazy type may hold the lazy form.
 * C readers by offset (oldscan.gather, oldscan.changes) read the member of either
 * type and handle the lazy form (table_lookup) or make it whole (table_whole, which
 * leaves the type: the next read of `_attrs` turns it).
 *
 * Why lazy: 98.7 % of a 10k job queue's dicts are built and never read but for one
 * name (benchmarks/RESULTS.md, session 28, stor28): a tuple of nine pairs instead of
 * an 85-entry dict per job. Why a subclass: a descriptor on ClassAd itself cost every
 * read of every ad's `_attrs` ~150 instructions (session 28, jads28: the cycle +0.6 %);
 * on the subclass it costs only the lazy ads' first reads (session 29, ladt29). */

#include "table.h"

#include "slotted.h"

#include <structmember.h>

/* What table_slot registered: the lazy type, the whole type it turns into, and the
 * whole type's member descriptors (table, layout, parent) slotted_new sets for a new
 * lazy ad. Strong references, set once when ad.py is imported (NULL before). */
static PyTypeObject *lazy_type = NULL;
static PyTypeObject *whole_type = NULL;
static PyObject *lazy_members = NULL;

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
    if (Py_TYPE(obj) != lazy_type && Py_TYPE(obj) != d->owner
            && !PyType_IsSubtype(Py_TYPE(obj), d->owner)) {
        PyErr_Format(PyExc_TypeError, "_attrs of a %.100s, not a %.100s",
                     d->owner->tp_name, Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return (PyObject **)((char *)obj + d->offset);
}

/* Turn an ad of the lazy type into one of the whole type (its table whole, or
 * gone): the type's reference moves with it (instances of heap types hold one). */
static void
become_whole(PyObject *obj)
{
    PyTypeObject *was = Py_TYPE(obj);
    if (was != lazy_type)
        return;
    Py_INCREF(whole_type);
    Py_SET_TYPE(obj, whole_type);
    Py_DECREF(was);  /* (never the last: the registration holds one) */
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
    if (TABLE_IS_LAZY(value)) {
        value = table_whole(at);
        if (value == NULL)
            return NULL;
    }
    else
        Py_INCREF(value);
    become_whole(obj);
    return value;
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
    if (value == NULL || !TABLE_IS_LAZY(value))
        become_whole(obj);
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
    .tp_doc = "A lazy ad's table (LazyClassAd._attrs) over ClassAd's member: a whole "
              "dict on every read, the ad a ClassAd after it (see table.c).",
    .tp_traverse = tableslot_traverse,
    .tp_clear = tableslot_clear,
    .tp_dealloc = tableslot_dealloc,
    .tp_methods = tableslot_methods,
    .tp_descr_get = tableslot_get,
    .tp_descr_set = tableslot_set,
};

/* Whether `lazy` may stand in for `whole` under the same memory: a direct subclass
 * with no field of its own, the same size, no __dict__ and the same weak reference
 * slot (what `__class__` assignment requires, checked once here, not per ad). */
static int
same_layout(PyTypeObject *lazy, PyTypeObject *whole)
{
    return lazy->tp_base == whole
        && (lazy->tp_flags & Py_TPFLAGS_HEAPTYPE) && (whole->tp_flags & Py_TPFLAGS_HEAPTYPE)
        && Py_SIZE(lazy) == 0  /* (a heap type's own members) */
        && lazy->tp_basicsize == whole->tp_basicsize
        && lazy->tp_itemsize == whole->tp_itemsize && whole->tp_itemsize == 0
        && lazy->tp_dictoffset == 0 && whole->tp_dictoffset == 0
        && !(lazy->tp_flags & Py_TPFLAGS_MANAGED_DICT)
        && !(whole->tp_flags & Py_TPFLAGS_MANAGED_DICT)
        && lazy->tp_weaklistoffset == whole->tp_weaklistoffset
        && lazy->tp_dealloc == whole->tp_dealloc
        && (lazy->tp_flags & Py_TPFLAGS_HAVE_GC) == (whole->tp_flags & Py_TPFLAGS_HAVE_GC);
}

int
table_lazy_of(PyTypeObject *type, PyTypeObject *whole)
{
    return type == lazy_type && whole == whole_type && type != NULL;
}

PyObject *
table_lazy_ad(PyObject *lazy, PyObject *layout)
{
    if (lazy_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "no lazy ad type registered (table_slot)");
        return NULL;
    }
    PyObject *values[2] = {lazy, layout};
    return slotted_new(lazy_type, lazy_members, values, 2);
}

PyObject *
oldscan_table_slot(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyTuple_CheckExact(args[0]) || PyTuple_GET_SIZE(args[0]) < 2
            || !PyType_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "table_slot(members: (table, layout, ...), "
                        "lazy_type: type)");
        return NULL;
    }
    PyObject *members = args[0];
    PyObject *member = PyTuple_GET_ITEM(members, 0);
    if (!PyObject_TypeCheck(member, &PyMemberDescr_Type)
            || ((PyMemberDescrObject *)member)->d_member->type != T_OBJECT_EX) {
        PyErr_SetString(PyExc_TypeError, "table_slot: the table must be a type's slot");
        return NULL;
    }
    PyTypeObject *owner = ((PyDescrObject *)member)->d_type;
    for (Py_ssize_t i = 1; i < PyTuple_GET_SIZE(members); i++) {
        PyObject *other = PyTuple_GET_ITEM(members, i);
        if (!PyObject_TypeCheck(other, &PyMemberDescr_Type)
                || ((PyDescrObject *)other)->d_type != owner) {
            PyErr_SetString(PyExc_TypeError, "table_slot: members must be one type's slots");
            return NULL;
        }
    }
    PyTypeObject *lazy = (PyTypeObject *)args[1];
    if (!same_layout(lazy, owner)) {
        PyErr_Format(PyExc_TypeError, "table_slot: %.100s must be a subclass of %.100s "
                     "with its very layout (no slot, no __dict__ of its own)",
                     lazy->tp_name, owner->tp_name);
        return NULL;
    }
    TableSlot *d = PyObject_GC_New(TableSlot, &TableSlotType);
    if (d == NULL)
        return NULL;
    Py_INCREF(owner);
    d->owner = owner;
    d->offset = ((PyMemberDescrObject *)member)->d_member->offset;
    PyObject_GC_Track(d);
    Py_INCREF(lazy);
    Py_XSETREF(lazy_type, lazy);
    Py_INCREF(owner);
    Py_XSETREF(whole_type, owner);
    Py_INCREF(members);
    Py_XSETREF(lazy_members, members);
    return (PyObject *)d;
}
