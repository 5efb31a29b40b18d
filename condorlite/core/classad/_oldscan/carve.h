/* carve_amounts(vals, had, moves): what a carve leaves of a partitionable slot's
 * state, its new values and amounts left, and whether no value is a float; see
 * condorlite/core/matching/carve_amounts.py. */

#ifndef OLDSCAN_CARVE_H
#define OLDSCAN_CARVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *oldscan_carve_amounts(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
