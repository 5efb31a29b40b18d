/* slotted(members, type, *values): a new instance of `type` (allocated, no __new__ or
 * __init__ run) whose member descriptors `members` (a tuple, one per value, each
 * type's own slot) are set to `values` in order, as calling each descriptor's
 * __set__ does, without a Python call per member. For the records a reading pass
 * makes one per ad (model.Job): nine __set__ calls through Python were most of
 * building one. */

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
    if (PyTuple_GET_SIZE(members) != n) {
        PyErr_SetString(PyExc_TypeError, "slotted: one value per member");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *member = PyTuple_GET_ITEM(members, i);
        if (!PyObject_TypeCheck(member, &PyMemberDescr_Type)
                || !PyType_IsSubtype(type, ((PyDescrObject *)member)->d_type)) {
            PyErr_SetString(PyExc_TypeError, "slotted: members must be the type's slots");
            return NULL;
        }
    }
    PyObject *obj = type->tp_alloc(type, 0);
    if (obj == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *member = PyTuple_GET_ITEM(members, i);
        if (Py_TYPE(member)->tp_descr_set(member, obj, args[i + 2]) < 0) {
            Py_DECREF(obj);
            return NULL;
        }
    }
    return obj;
}
