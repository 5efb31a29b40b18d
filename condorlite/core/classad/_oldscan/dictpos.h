/* A value set at its known position in a str-keyed dict the scanner just copied
 * (dictpos.c), for the ads whose dict is a copy of an ad of the same names in the same
 * order (ads.c: the template and the shapes). */

#ifndef OLDSCAN_DICTPOS_H
#define OLDSCAN_DICTPOS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Whether dictpos_set may write `attrs`'s entries in place: an exact dict with a
 * combined table of str keys, already tracked by the collector (so that setting a
 * value needs no tracking). 0 on builds without the positional write (any CPython but
 * 3.11): dictpos_set is then PyDict_SetItem. */
int dictpos_ready(PyObject *attrs);

/* attrs[key] = value, where `key` is expected at entry `i` (the i-th key inserted):
 * when dictpos_ready(attrs) was true and the entry holds that very key object, its
 * value is replaced in place (what PyDict_SetItem does for a key present, without the
 * hash lookup); else PyDict_SetItem. 0, or -1 with an exception. */
int dictpos_set(PyObject *attrs, int ready, Py_ssize_t i, PyObject *key, PyObject *value);

#endif
