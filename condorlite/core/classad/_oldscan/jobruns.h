/* run_jobs(ads, start, mark, cluster, out, types): the Jobs of a reader run's job ads
 * in one C loop; see jobruns.c. */

#ifndef OLDSCAN_JOBRUNS_H
#define OLDSCAN_JOBRUNS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *oldscan_run_jobs(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
