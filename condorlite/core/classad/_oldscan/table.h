/* An ad's table slot (ClassAd._attrs) as a C data descriptor over a hidden member, and
 * the lazy form of a table the scanner gives an ad of a run (table.c). */

#ifndef OLDSCAN_TABLE_H
#define OLDSCAN_TABLE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The descriptor's type (module attribute TableSlot). */
extern PyTypeObject TableSlotType;

/* Whether a table slot's value is the lazy form: (base, pair, ...), `base` a dict and
 * each pair a (lower-case name, entry) tuple; the whole table is a copy of `base` with
 * the pairs set. A whole table is never a tuple. */
#define TABLE_IS_LAZY(value) PyTuple_CheckExact(value)

/* The whole table at *at (the lazy form there made whole and stored in its place), a
 * new reference; NULL with an exception on failure (*at unchanged). */
PyObject *table_whole(PyObject **at);

/* The entry of `key` (a str) in `table`, a whole dict or the lazy form, without
 * making it whole: a borrowed reference, NULL without an exception when absent, NULL
 * with one on failure. */
PyObject *table_lookup(PyObject *table, PyObject *key);

/* table_slot(member): a TableSlot over a type's member descriptor (module function). */
PyObject *oldscan_table_slot(PyObject *module, PyObject *member);

#endif
