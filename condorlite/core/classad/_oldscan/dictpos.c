/* A value set at its known position in a str-keyed dict (dictpos.h).
 *
 * Why: a slot ad's dict is a copy of a recent ad's of the same names in the same order
 * (ads.c), with its per-slot values set: 66 of 160 on a realistic partitionable pool,
 * 662,520 PyDict_SetItem for 10,000 slots, ~200 instructions each, most of them the
 * hash lookup of a key whose entry the scanner already knows by position (the i-th
 * line's name is the i-th key inserted). CPython 3.11's combined table keeps its
 * entries in insertion order (dk_entries; no deletion in a dict the scanner built and
 * copied), so the i-th entry is read directly and, when it holds the very key object,
 * its value is replaced as insertdict replaces the value of a key present: the new
 * value referenced, the old released, nothing else of the table touched (keys, hashes,
 * indices, order, size and dk_version stay). Two things insertdict does that this does
 * not: the collector tracking of the dict (dictpos_ready asks for a dict tracked
 * already) and a new ma_version_tag (a counter private to CPython, read only by the
 * interpreter's caches of module and builtins dicts, which never see a dict no Python
 * code has held yet). The layout is CPython's internal one (pycore_dict.h), so the
 * positional write is compiled for 3.11 only; on any other version dictpos_set is
 * PyDict_SetItem. */

#include "dictpos.h"

/* (an installation without CPython's internal headers builds the plain way: the
 * module must build wherever a C compiler is, setup.py) */
#define DICTPOS_WRITES 0
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API) \
        && defined(__has_include)
#if __has_include("internal/pycore_dict.h")
#undef DICTPOS_WRITES
#define DICTPOS_WRITES 1
#ifndef Py_BUILD_CORE
#define Py_BUILD_CORE 1  /* pycore_dict.h asks for it; it declares the layout only */
#endif
#include "internal/pycore_dict.h"
#endif
#endif

int
dictpos_ready(PyObject *attrs)
{
#if DICTPOS_WRITES
    PyDictObject *mp = (PyDictObject *)attrs;
    return PyDict_CheckExact(attrs) && mp->ma_values == NULL
           && DK_IS_UNICODE(mp->ma_keys) && PyObject_GC_IsTracked(attrs);
#else
    (void)attrs;
    return 0;
#endif
}

int
dictpos_set(PyObject *attrs, int ready, Py_ssize_t i, PyObject *key, PyObject *value)
{
#if DICTPOS_WRITES
    if (ready) {
        PyDictKeysObject *keys = ((PyDictObject *)attrs)->ma_keys;
        if (i < keys->dk_nentries) {
            PyDictUnicodeEntry *entry = &DK_UNICODE_ENTRIES(keys)[i];
            if (entry->me_key == key) {
                PyObject *old = entry->me_value;
                entry->me_value = Py_NewRef(value);
                Py_XDECREF(old);
                return 0;
            }
        }
    }
#else
    (void)ready;
    (void)i;
#endif
    return PyDict_SetItem(attrs, key, value);
}
