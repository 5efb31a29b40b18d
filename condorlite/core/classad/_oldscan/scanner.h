/* The old-form scanner's state (scanner.c: the type and the feeding; ads.c: an ad's
 * dict from its lines; plain.c: the lines read in C). */

#ifndef OLDSCAN_SCANNER_H
#define OLDSCAN_SCANNER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "adlines.h"
#include "tables.h"

/* How many recent ads' dicts of different names a Scanner keeps (shapes). */
#define SCANNER_SHAPES 8

/* An ad's dict and its pairs in order (strong references; attrs NULL: none kept). */
typedef struct {
    PyObject *attrs;
    PyObject **pairs;
    Py_ssize_t n;
    Py_ssize_t cap;
} Shape;

typedef struct {
    PyObject_HEAD
    Generations lines;   /* line text -> (lower-case name, (spelling, expr)) */
    Generations values;  /* value text -> Literal, for the lines read here */
    Generations named;   /* name text -> what `names` or `new_name` gave (plain.c) */
    uint64_t key;
    PyTypeObject *literal_type;
    PyObject *value_descr;
    /* where a Literal keeps its value, when value_descr is a plain member of
     * literal_type's own (its __slots__): set there directly, as the descriptor would
     * set a slot tp_alloc left empty; -1: through the descriptor (plain.c) */
    Py_ssize_t value_offset;
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
    /* whether `template` is a private copy no ad holds: the base of the lazy tables
     * of the current run's ads (ads.c: lazy_table) */
    int template_private;
    /* whether the previous ad's table is lazy: it differs from `template` at every
     * position of the mark, not only where its lines differ from the ad before */
    int lazy_previous;
    /* dicts of this feed()'s ads of different names, with their pairs (ads.c:
     * shapes): an ad whose names are not the previous ad's but a recent ad's (a
     * pool's slot types interleave) starts from a copy of that ad's dict */
    Shape shapes[SCANNER_SHAPES];
    int shape_next;
    /* the mark (ClassAd.layout) of the ads of the current run: ads with the previous
     * ad's names in the same order whose lines differ from the run's first ad's only
     * at the names in the mark, a set (ads.c); a new set when a run starts */
    PyObject *layout;
    Py_ssize_t run_ads;  /* the ads of the current run so far */
    /* by position, whether the line is at a name of the mark (set by the run's second
     * ad), and how many positions the buffer holds */
    char *varying;
    Py_ssize_t varying_size;
    Py_ssize_t lineno;  /* lines read so far */
    /* the current ad's line at position i is compared with the previous ad's at
     * i + shift (scanner.c: align): 0 at an ad's first line, moved where one of the
     * two ads holds a name the other lacks (a pool's slot types interleave: a dynamic
     * slot's lines are a partitionable one's with a few names more) */
    Py_ssize_t shift;
    /* JSON mode (jsonlines.c) */
    int json;               /* the lines are condor_status -json's layout */
    int state;              /* where in the array the reader is */
    int stopped;            /* handed over: the general reader reads the rest */
    Py_ssize_t ad_line;     /* the open ad's "{" line */
    Py_ssize_t token_line;  /* the last structural line */
    Py_ssize_t handover;    /* the line the general reader resumes at */
} Scanner;

/* What a line's reading returns when the JSON reader hands over (jsonlines.c). */
#define SCANNER_HAND_OVER 1

static inline void
pending_clear(Scanner *s)
{
    adlines_clear(&s->pending);
}

static inline int
pending_add(Scanner *s, PyObject *pair, const char *key, Py_ssize_t size, int kind,
            int fresh)
{
    return adlines_add(&s->pending, pair, key, size, kind, fresh);
}

/* Drop the dicts of this feed()'s ads (template, shapes): the ads handed out are the
 * caller's, which may change them, so none is copied in a later feed(). */
void scanner_forget_dicts(Scanner *s);

/* scanner_forget_dicts, and the shapes' arrays freed (the Scanner's end). */
void scanner_free_shapes(Scanner *s);

/* End the current ad: build it (ads.c) and append it to done (an ad of no line only
 * when `empty`); 0, or -1 with an exception. Its lines become the previous ad's either
 * way. */
int scanner_end_ad(Scanner *s, PyObject *done, int empty);

/* A member line [pos, stop) of text (scanner.c): the previous ad's line at its
 * position, the line table, a line read in C, else `miss`. `comma` is -1 for the old
 * form, else whether the JSON member ends with a comma. 0, -1 with an exception, or
 * SCANNER_HAND_OVER (JSON: `miss` returned None). `unlike`: the caller found the line
 * unlike the previous ad's at its position (adlines_run), which is not compared again. */
int scanner_feed_member(Scanner *s, PyObject *text, const void *data, int kind,
                        Py_ssize_t pos, Py_ssize_t stop, PyObject *done, int comma,
                        int unlike);

/* One line of a JSON input (jsonlines.c): 0, -1 with an exception, or
 * SCANNER_HAND_OVER with s->handover set. */
int scanner_json_line(Scanner *s, PyObject *text, const void *data, int kind,
                      Py_ssize_t pos, Py_ssize_t stop, PyObject *done);

/* Stop the JSON reader at `line` (inside an ad: at its "{" line); returns
 * SCANNER_HAND_OVER. */
int scanner_hand_over(Scanner *s, Py_ssize_t line);

/* The general reader's state at the JSON reader's (jsonread._Reader.resume). */
const char *scanner_json_mode(const Scanner *s);

/* At the end of a JSON input: 0 when it ended where an input may end, else 1 with the
 * line the general reader is to read from and whether that line's token is blanked
 * out (between ads: it is the last structural line, read again only for its place). */
int scanner_json_at_end(const Scanner *s, Py_ssize_t *line, int *blank);

/* The first line a JSON hand over can resume at, now or at the end of the input: the
 * open ad's "{" line, else the last structural line, else the next line. */
Py_ssize_t scanner_json_keep_from(const Scanner *s);

/* The pair of a plain JSON member line (jsonlines.c), as scanner_plain_pair. */
PyObject *scanner_json_pair(Scanner *s, const unsigned char *p, Py_ssize_t n,
                            int *value_new);

/* A Literal holding `value` (a reference stolen), a new reference; NULL with an
 * exception on failure (plain.c). */
PyObject *scanner_literal(Scanner *s, PyObject *value);

/* Makes the Literal of a value text: NULL without an exception when not plain. */
typedef PyObject *(*literal_maker)(Scanner *s, const unsigned char *v, Py_ssize_t n);

/* The Literal of the value text v[0..n) through the scanner's value table (one per
 * text), made by `make` when the table lacks it, a new reference; NULL without an
 * exception when `make` finds it not plain. *value_new: whether the table lacked it
 * (plain.c). */
PyObject *scanner_value(Scanner *s, const unsigned char *v, Py_ssize_t n,
                        literal_maker make, int *value_new);

/* The pair (lower-case name, (spelling, literal)) of a line whose head (the text
 * before its "=" or ":") is head[0..head_n) and whose name text name[0..name_n): the
 * last name read at its position when the head is the same (adlines.h: Head), else
 * `names` or `new_name` by the name text. A new reference; NULL without an exception
 * when `new_name` returns None (not a plain name), with one on failure (plain.c). */
PyObject *scanner_named_pair(Scanner *s, const unsigned char *head, Py_ssize_t head_n,
                             const unsigned char *name, Py_ssize_t name_n,
                             PyObject *literal);

/* The pair of a one-byte-per-character line read in C (plain.c), a new reference;
 * NULL without an exception when the line is not of the plain form, NULL with one on
 * failure. *value_new says whether its value was new to the value table. */
PyObject *scanner_plain_pair(Scanner *s, const unsigned char *p, Py_ssize_t n,
                             int *value_new);

#endif
