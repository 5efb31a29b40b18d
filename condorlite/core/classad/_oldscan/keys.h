/* entry_key(table, names): the addresses of table's values for names (NULL for an
 * absent one), one after another in a bytes object; find_split(table, splits, kind,
 * literal, member): the first split whose records hold table's entries and whose
 * literal names table binds to entries whose item 1 is exactly of type literal, with
 * those items' member values; see condorlite/core/entry_keys.py. */

#ifndef OLDSCAN_KEYS_H
#define OLDSCAN_KEYS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *oldscan_entry_key(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *oldscan_find_split(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
