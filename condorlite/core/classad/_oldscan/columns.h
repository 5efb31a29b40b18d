/* changes(tables, keys, marks=None): where rows of dicts change their values for keys;
 * see columns.c. */

#ifndef OLDSCAN_COLUMNS_H
#define OLDSCAN_COLUMNS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *oldscan_changes(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
