/* changes(tables, keys, marks=None): where rows of dicts change their values for keys;
 * see columns.c. */

#ifndef OLDSCAN_COLUMNS_H
#define OLDSCAN_COLUMNS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *oldscan_changes(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* gather(rows, row_members, ad_type, ad_members): the rows' ads' tables, run marks and
 * the rows' ids, or None; see columns.c. */
PyObject *oldscan_gather(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* runs(rows, row_members, ad_type, ad_members): gather's rows as the reader's runs (each
 * run's first row, table and mark; each row's id), or None; see columns.c. */
PyObject *oldscan_runs(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* descents(rows, members): the rows whose members' values, as a tuple, are <= the row
 * before's, after 0; see columns.c. */
PyObject *oldscan_descents(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* expressions(tables, keys, marks, literal): the distinct values of the keys' columns
 * that are present and not literals; see columns.c. */
/* select(rows, member, value): the rows whose member's value == value, or None; see
 * columns.c. */
PyObject *oldscan_select(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *oldscan_expressions(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
