/* entry_key(table, names): the addresses of table's values for names (NULL for an
 * absent one), one after another in a bytes object; bound_to(table, names, kind):
 * whether table binds each of names to an entry whose item 1 is exactly of type kind;
 * see condorlite/core/entry_keys.py. */

#ifndef OLDSCAN_KEYS_H
#define OLDSCAN_KEYS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *oldscan_entry_key(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *oldscan_bound_to(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
