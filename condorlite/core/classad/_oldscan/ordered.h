/* ordered_make(...), literal_make(...): an ordered source's items made into candidate
 * entries, one loop; see condorlite/core/matching/ordered_make.py. */

#ifndef OLDSCAN_ORDERED_H
#define OLDSCAN_ORDERED_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *oldscan_ordered_make(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *oldscan_literal_make(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
