/* A lazy ad's table slot (LazyClassAd._attrs) as a C data descriptor over ClassAd's
 * member, and the lazy form of a table the scanner gives an ad of a run (table.c). */

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
 * new reference; NULL with an exception on failure (*at unchanged). The ad's type is
 * left as it is (the next read of its `_attrs` turns it into a ClassAd). */
PyObject *table_whole(PyObject **at);

/* The entry of `key` (a str) in `table`, a whole dict or the lazy form, without
 * making it whole: a borrowed reference, NULL without an exception when absent, NULL
 * with one on failure. */
PyObject *table_lookup(PyObject *table, PyObject *key);

/* table_slot(members, lazy_type): a TableSlot over the table member (members[0]) of
 * the whole type, for `lazy_type` (a subclass of the very same layout); registers
 * both types and the members (table, layout, parent) a new lazy ad is made with
 * (module function). */
PyObject *oldscan_table_slot(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* A new ad of the registered lazy type with the lazy form `lazy` and the reader mark
 * `layout` (its other members None), a new reference; NULL with an exception (also
 * when no type is registered). */
PyObject *table_lazy_ad(PyObject *lazy, PyObject *layout);

/* Whether `type` is the registered lazy type of `whole` (gather takes its ads as
 * `whole`'s: the same members at the same offsets). */
int table_lazy_of(PyTypeObject *type, PyTypeObject *whole);

#endif
