/* slotted(members, type, *values): an instance of a slotted type with its members set
 * (those past the values to None), in C; see slotted.c. */

#ifndef OLDSCAN_SLOTTED_H
#define OLDSCAN_SLOTTED_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *oldscan_slotted(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* slotted() unchecked: `members` already known to be a tuple of `type`'s member
 * descriptors, at least `n` of them (table.c makes the scanner's lazy ads so). A new
 * reference, or NULL with an exception. */
PyObject *slotted_new(PyTypeObject *type, PyObject *members, PyObject *const *values,
                      Py_ssize_t n);

#endif
