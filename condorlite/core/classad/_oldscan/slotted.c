/* slotted(members, type, *values): a new instance of `type` (allocated, no __new__ or
 * __init__ run) whose member descriptors `members` (a tuple of the type's own slots,
 * at least one per value) are set to `values` in order, and the members past the
 * values to None, as calling each descriptor's __set__ does, without a Python call per
 * member. For the objects a reading pass makes one per ad (model.Job, adfiles.LoadedAd,
 * the scanner's ClassAds): nine __set__ calls through Python were most of building a
 * Job. */

#include "slotted.h"

#include <structmember.h>

PyObject *
oldscan_slotted(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2 || !PyTuple_CheckExact(args[0]) || !PyType_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "slotted(members: tuple, type: type, *values)");
        return NULL;
    }
    PyObject *members = args[0];
    PyTypeObject *type = (PyTypeObject *)args[1];
    Py_ssize_t n = nargs - 2;
    Py_ssize_t m = PyTuple_GET_SIZE(members);
    if (m < n) {
        PyErr_SetString(PyExc_TypeError, "slotted: more values than members");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *member = PyTuple_GET_ITEM(members, i);
        if (!PyObject_TypeCheck(member, &PyMemberDescr_Type)
                || !PyType_IsSubtype(type, ((PyDescrObject *)member)->d_type)) {
            PyErr_SetString(PyExc_TypeError, "slotted: members must be the type's slots");
            return NULL;
        }
    }
    return slotted_new(type, members, args + 2, n);
}

PyObject *
slotted_new(PyTypeObject *type, PyObject *members, PyObject *const *values, Py_ssize_t n)
{
    PyObject *obj = type->tp_alloc(type, 0);
    if (obj == NULL)
        return NULL;
    Py_ssize_t m = PyTuple_GET_SIZE(members);
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *member = PyTuple_GET_ITEM(members, i);
        PyObject *value = i < n ? values[i] : Py_None;
        if (Py_TYPE(member)->tp_descr_set(member, obj, value) < 0) {
            Py_DECREF(obj);
            return NULL;
        }
    }
    return obj;
}
