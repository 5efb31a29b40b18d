/* The old-form scanner's state (scanner.c: the type and the feeding; ads.c: an ad's
 * dict from its lines; plain.c: the lines read in C). */

#ifndef OLDSCAN_SCANNER_H
#define OLDSCAN_SCANNER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "adlines.h"
#include "tables.h"

typedef struct {
    PyObject_HEAD
    Generations lines;   /* line text -> (lower-case name, (spelling, expr)) */
    Generations values;  /* value text -> Literal, for the lines read here */
    uint64_t key;
    PyTypeObject *literal_type;
    PyObject *value_descr;
    PyObject *names;
    PyObject *new_name;
    PyObject *miss;
    PyObject *from_attrs;
    PyObject *old_ad;
    PyObject *end;
    AdLines pending;    /* the current ad's pairs and lines */
    AdLines previous;   /* the previous ad's, for the comparison by position */
    Head *heads;        /* HEADS_POSITIONS of them (adlines.h) */
    /* the previous ad's dict while one feed() runs, when from_attrs took it: an ad
     * with the previous ad's names in the same order starts from its copy */
    PyObject *template;
    Py_ssize_t lineno;  /* lines read so far */
} Scanner;

static inline void
pending_clear(Scanner *s)
{
    adlines_clear(&s->pending);
}

static inline int
pending_add(Scanner *s, PyObject *pair, const char *key, Py_ssize_t size, int kind)
{
    return adlines_add(&s->pending, pair, key, size, kind);
}

/* End the current ad: build it (ads.c) and append it to done; 0, or -1 with an
 * exception. Its lines become the previous ad's either way. */
int scanner_end_ad(Scanner *s, PyObject *done);

/* The pair of a one-byte-per-character line read in C (plain.c), a new reference;
 * NULL without an exception when the line is not of the plain form, NULL with one on
 * failure. *value_new says whether its value was new to the value table. */
PyObject *scanner_plain_pair(Scanner *s, const unsigned char *p, Py_ssize_t n,
                             int *value_new);

#endif
