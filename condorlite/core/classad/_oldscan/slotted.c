/* slotted(members, type, *values): a new instance of `type` (allocated, no __new__ or
 * __init__ run) whose member descriptors `members` (a tuple of the type's own slots,
 * at least one per value) are set to `values` in order, and the members past the
 * values to None, as calling each descriptor's __set__ does, without a Python call per
 * member. For the objects a reading pass makes one per ad (model.Job, adfiles.LoadedAd,
 * the scanner's ClassAds): nine __set__ calls through Python were most of building a
 * Job. */

#include "slotted.h"

#include <structmember.h>

/* Where `member`, a descriptor of `type`'s (slotted_new's precondition), keeps its
 * value in an instance, when setting it through the descriptor would only store it
 * there: a plain member descriptor (member_set) of a writable object member inside
 * the instance; else -1 (its setter runs). Why: the setter's call, its type check and
 * PyMember_SetOne's switch were ~70 instructions a value, for nine values a job of
 * the pool (RESULTS.md, session 30); scanner.c sets a Literal's value so too. */
static Py_ssize_t
member_offset(PyTypeObject *type, PyObject *member)
{
    if (!Py_IS_TYPE(member, &PyMemberDescr_Type))
        return -1;
    PyMemberDef *def = ((PyMemberDescrObject *)member)->d_member;
    if ((def->type != T_OBJECT_EX && def->type != T_OBJECT) || (def->flags & READONLY)
            || def->offset <= 0
            || def->offset + (Py_ssize_t)sizeof(PyObject *) > type->tp_basicsize)
        return -1;
    return def->offset;
}

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
        Py_ssize_t offset = member_offset(type, member);
        if (offset > 0) {
            /* what PyMember_SetOne does for an object member (the instance is new: the
             * member, zeroed by tp_alloc, held nothing unless set before in this loop) */
            Py_XSETREF(*(PyObject **)((char *)obj + offset), Py_NewRef(value));
        }
        else if (Py_TYPE(member)->tp_descr_set(member, obj, value) < 0) {
            Py_DECREF(obj);
            return NULL;
        }
    }
    return obj;
}
