/* sync_moves(...): StaticOrders.sync's per-offer step on its common path; see
 * condorlite/core/matching/sync_moves.py. */

#ifndef OLDSCAN_SYNC_H
#define OLDSCAN_SYNC_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *oldscan_sync_moves(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
