/* The lines of one ad as the old-form scanner (scanner.c) read them: each line's pair
 * and a copy of the line's text, so that the next ad's lines can be compared with them
 * by position (adlines_same). */

#ifndef OLDSCAN_ADLINES_H
#define OLDSCAN_ADLINES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* Where a pair's line text was copied: offset and bytes in its AdLines' text, and the
 * text's kind; off -1 when the line was too long to keep (it is never compared).
 * `fresh`: the line was new to the line table and its value new to the value table, a
 * per-ad value (ProcId, GlobalJobId, a slot's KFlops), whose line the next ad will not
 * repeat: the next ad's line compared with it is read without the line table
 * (scanner.c: scanner_feed_member). Kept with the line, so that it follows the line
 * wherever the next ad's lines are compared (scanner.h: shift). */
typedef struct {
    Py_ssize_t off;
    Py_ssize_t size;
    int kind;
    char fresh;
} LineRef;

/* An ad's pairs (strong references), where each pair's line text was copied, and the
 * copies. All zero is an empty AdLines. */
typedef struct {
    PyObject **pairs;
    LineRef *lines;   /* parallel to pairs */
    Py_ssize_t n;
    Py_ssize_t cap;
    char *text;
    size_t used;
    size_t text_cap;
} AdLines;

/* Lines longer than this many bytes are not copied: a hostile 100 MB line would
 * otherwise be held once more. */
#define ADLINES_KEEP_MAX 4096

/* Append pair (a new reference is taken) and a copy of its line (size bytes of key,
 * of the given kind), fresh or not (LineRef); 0, or -1 with an exception. */
int adlines_add(AdLines *a, PyObject *pair, const char *key, Py_ssize_t size, int kind,
                int fresh);

/* Whether line i was fresh (LineRef); 0 when a holds no line i. */
static inline int
adlines_fresh(const AdLines *a, Py_ssize_t i)
{
    return i >= 0 && i < a->n && a->lines[i].fresh;
}

/* The pair of line i when its text is that of key (size bytes, kind), a borrowed
 * reference; else NULL (never an exception). */
PyObject *adlines_same(const AdLines *a, Py_ssize_t i, const char *key, Py_ssize_t size,
                       int kind);

/* The number of whole lines, from line i of `from` on, that the text at key (at most
 * room bytes, one byte per character) repeats in order: the run of `from`'s lines
 * that were kept (adlines_add) contiguously from line i and are one byte per
 * character, compared with the text in one pass (adlines_run). *bytes is set to the
 * bytes those lines take. *unlike is set to whether the text's line after the run (at
 * key + *bytes, a line that ends with a line end or at room) is known to differ from
 * `from`'s line at its position, so that adlines_same need not compare it again: it
 * does unless `from` holds no kept line there or the comparison reached that line's
 * whole text (0 only for a line of `from` without a line end: an input's last).
 * Never an exception. */
Py_ssize_t adlines_run(const AdLines *from, Py_ssize_t i, const char *key, Py_ssize_t room,
                       Py_ssize_t *bytes, int *unlike);

/* Append lines [i, i + count) of `from` (their pairs, a new reference each, none
 * fresh) with their text, which is the `bytes` bytes at key (adlines_run's run): one
 * copy for the run, not one per line. 0, or -1 with an exception. */
int adlines_add_run(AdLines *a, const AdLines *from, Py_ssize_t i, Py_ssize_t count,
                    const char *key, Py_ssize_t bytes);

/* The names of the last plain lines read at each position of an ad (a line's
 * position is its pair's index in its ad): the head (the bytes before '=') and what
 * the scanner's name table gave for it, a (lower-case name, spelling) pair. A slot's
 * per-slot numbers and a job's per-job values are new lines at the same positions ad
 * after ad: their heads repeat, and comparing a head here costs less than making its
 * string and looking it up. */
#define HEADS_POSITIONS 512
#define HEADS_MAX 48

typedef struct {
    Py_ssize_t size;             /* bytes of text; 0: none kept */
    char text[HEADS_MAX];
    PyObject *named;             /* strong reference, NULL when none kept */
} Head;

/* The name kept for position i when its head is the n bytes at p, a borrowed
 * reference; else NULL (never an exception). heads may be NULL. */
PyObject *heads_get(const Head *heads, Py_ssize_t i, const char *p, Py_ssize_t n);

/* Keep named (a new reference is taken) for the head of n bytes at p at position i,
 * when both fit (a no-op otherwise). */
void heads_put(Head *heads, Py_ssize_t i, const char *p, Py_ssize_t n, PyObject *named);

/* Release the names kept (HEADS_POSITIONS of them) and the array. */
void heads_free(Head *heads);

/* Release the pairs; the buffers are kept for the next ad. */
void adlines_clear(AdLines *a);

/* Release the pairs and the buffers. */
void adlines_free(AdLines *a);

#endif
