/* Old-form ad reading, the per-line part in C (see oldscan.py for the contract).
 *
 * A Scanner takes text pieces that end at a line end (the last piece of an input may
 * not; old form: a str, or a bytes-like object of UTF-8 text, read as the str it
 * decodes to with surrogateescape: as it is when ASCII, decoded first otherwise) and
 * does, for every line, what oldform._read_batch and oldform._by_line do:
 *
 *   - a line that is exactly "\n" ends the current ad (an ad with no line is none);
 *   - a line equal to the previous ad's line at the same position (the n-th pair of
 *     each) takes that line's pair without a table lookup: the ads of a job cluster or
 *     of one machine's slots repeat most of their lines in order, and comparing with
 *     the previous ad's copy, still in cache, costs a fraction of hashing the line and
 *     probing a table (RESULTS.md, session 17). Equal text gives an equal pair, so the
 *     ads are the same; a line kept this way is not refreshed in the table, which can
 *     only make a later ad hold an equal pair that is another object. In a one-byte
 *     text the lines that repeat the previous ad's in a row are taken as a run
 *     (feed_run: the text compared with the previous ad's copy in one pass, copied
 *     once), which does for each line what the line-by-line comparison does; a line
 *     the run's comparison found unlike is not compared again;
 *   - "at the same position" is at the position plus a shift (Scanner.shift, 0 at an
 *     ad's first line) that follows the names one ad holds and the other lacks
 *     (align: a line unlike the one it was compared with moves the shift on to the
 *     previous ad's line of its name among the next few, or back one when there is
 *     none): a pool's slot types interleave, and a dynamic slot's lines are a
 *     partitionable slot's with a few names more, so the lines after such a name are
 *     compared with the previous ad's lines of their names, not looked up;
 *   - a line compared with a line that was new with a new value (a per-ad value:
 *     ProcId, GlobalJobId, a slot's KFlops; adlines.h: LineRef.fresh), when plain, is
 *     read without the line table; if its value turns out to be known, the table is
 *     asked after all (and the pair it holds is taken), so values that repeat keep
 *     their lines shared;
 *   - a new plain line whose head is that of the last line read at its position
 *     takes that line's name (adlines.h: Head) without a lookup;
 *   - any other line is looked up, by its exact text (line end included), in a
 *     two-generation table of lines read before (the young one first; a line found
 *     only in the old one is copied into the young one), and its stored pair
 *     (lower-case name, (spelling, expr)) is appended to the current ad;
 *   - a line the table lacks is, when the text is one byte per character and the line
 *     is "head = value" with a value that is a string without NUL whose quotes inside
 *     are all written \", a decimal integer of 1 to 18 digits without a leading zero
 *     (optionally negative) or a plain real (plain_value; one of at most 15
 *     significant digits and a power of ten of at most 22 without strtod: values.c),
 *     read here (a Literal's member slot set directly: plain.c): the head
 *     through the `names` dict (oldform.OLD_NAMES) or `new_name` (which checks it is a
 *     plain name and remembers it), the value as a Literal built as oldform's
 *     `_plain_literal` builds it; any other line goes to `miss(line, lineno)`, which
 *     returns its pair, None for a line to skip (a comment) or `end` for a line that
 *     ends the ad (blank characters only), or raises (a bad line);
 *   - pairs read here or returned by `miss` are stored in the young generation; when
 *     it holds `limit` lines it becomes the old one (the old one is dropped);
 *   - the Literals read here are kept the same way by value text, so that one value
 *     held under several names (GlobalJobId and SubmitterGlobalJobId) is one object,
 *     as oldform's OLD_VALUES makes it.
 *
 * An ad's dict is built from its pairs in order (or, when the ad holds the previous
 * ad's names in the same order within one feed(), copied from the previous ad's dict
 * with the values that differ set: the same dict, made in one piece; or, when it holds
 * the names of one of the last SCANNER_SHAPES ads of other names built within the same
 * feed(), copied from that ad's dict the same way: ads.c, shapes); when a name
 * repeats (fewer keys than lines) `old_ad(list of pairs)` builds it instead (first
 * spelling and position, last value), else `from_attrs(dict, layout)`, where layout
 * is one set for a run of ads each holding the previous one's names in the same
 * order (the same key objects) and changing lines only at the names in the set (those
 * the run's first two ads differ in: ads.c), across feed() calls and up to the
 * input's last ad (finish), a new one when a run starts. Finished ads are
 * appended to the list given to feed(); when `miss` raises, the ads finished before
 * the bad line are in that list, the current ad's pairs are kept, and the error
 * propagates.
 *
 * Nothing here interprets ClassAd syntax beyond the two literal forms above; every
 * other decision is the Python callbacks'. Table keys are the line's characters in the
 * text's own storage (kind), hashed with a per-scanner random key, so crafted lines
 * cannot force collisions, and compared in full on a hash match.
 */


#include <stdint.h>
#include <string.h>

#include "carve.h"
#include "columns.h"
#include "jobruns.h"
#include "keys.h"
#include "ordered.h"
#include "sync.h"
#include "slotted.h"
#include "table.h"
#include "scanner.h"

#include <structmember.h>  /* after Python.h (scanner.h): T_OBJECT_EX, READONLY */

/* -- feeding ---------------------------------------------------------------------- */

static inline Py_ssize_t
next_line_end(const void *data, int kind, Py_ssize_t pos, Py_ssize_t n)
{
    if (kind == PyUnicode_1BYTE_KIND) {
        const char *c = memchr((const char *)data + pos, '\n', (size_t)(n - pos));
        return c == NULL ? n : (c - (const char *)data) + 1;
    }
    for (Py_ssize_t i = pos; i < n; i++) {
        if (PyUnicode_READ(kind, data, i) == '\n')
            return i + 1;
    }
    return n;
}

/* The previous ad's line compared with the current ad's at position, or -1 for none. */
static inline Py_ssize_t
compared(const Scanner *s, Py_ssize_t position)
{
    Py_ssize_t j = position + s->shift;
    return j >= 0 && j < s->previous.n ? j : -1;
}

/* The lines from pos on (one byte per character, n - pos bytes left) that repeat the
 * previous ad's lines at their positions, taken as a run (adlines_run): for each, what
 * scanner_feed_member does for a line equal to the previous ad's (its pair, the
 * position not fresh), with one comparison and one copy for the run. The bytes taken
 * (whole lines; 0: none), or -1 with an exception; *unlike: whether the line after
 * them is known to differ from the previous ad's at its position (adlines_run). */
static Py_ssize_t
feed_run(Scanner *s, const void *data, Py_ssize_t pos, Py_ssize_t n, int *unlike)
{
    Py_ssize_t i = s->pending.n;
    if (i == 0)
        s->shift = 0;
    Py_ssize_t j = compared(s, i);
    Py_ssize_t bytes;
    const char *key = (const char *)data + pos;
    *unlike = 1;
    if (j < 0)
        return 0;
    Py_ssize_t count = adlines_run(&s->previous, j, key, n - pos, &bytes, unlike);
    if (count == 0)
        return 0;
    s->lineno += count;
    if (adlines_add_run(&s->pending, &s->previous, j, count, key, bytes) < 0)
        return -1;
    return bytes;
}

/* One old-form line [pos, stop) of text; 0 on success, -1 with an exception. */
static int
feed_line(Scanner *s, PyObject *text, const void *data, int kind, Py_ssize_t pos,
          Py_ssize_t stop, PyObject *done, int unlike)
{
    s->lineno++;
    if (stop - pos == 1 && PyUnicode_READ(kind, data, pos) == '\n')
        return scanner_end_ad(s, done, 0);
    return scanner_feed_member(s, text, data, kind, pos, stop, done, -1, unlike);
}

/* The plain pair of a new line: the old form's (plain.c) or JSON's (jsonlines.c). */
static inline PyObject *
plain_pair(Scanner *s, const unsigned char *p, Py_ssize_t n, int *value_new)
{
    return s->json ? scanner_json_pair(s, p, n, value_new)
                   : scanner_plain_pair(s, p, n, value_new);
}

/* `miss` for a line no table holds: (line, lineno) for the old form, (line, comma)
 * for JSON; a new reference, or NULL with an exception. */
static PyObject *
call_miss(Scanner *s, PyObject *text, const void *data, Py_ssize_t pos, Py_ssize_t stop,
          int comma)
{
    /* text NULL: ASCII bytes (Scanner_feed), whose line decodes as it is */
    PyObject *line = text != NULL
        ? PyUnicode_Substring(text, pos, stop)
        : PyUnicode_DecodeASCII((const char *)data + pos, stop - pos, NULL);
    if (line == NULL)
        return NULL;
    PyObject *second = comma < 0 ? PyLong_FromSsize_t(s->lineno) : PyBool_FromLong(comma);
    if (second == NULL) {
        Py_DECREF(line);
        return NULL;
    }
    PyObject *pair = PyObject_CallFunctionObjArgs(s->miss, line, second, NULL);
    Py_DECREF(line);
    Py_DECREF(second);
    return pair;
}

/* How many of the previous ad's lines after the compared one align looks at for the
 * name of a line unlike it. */
#define ALIGN_AHEAD 8

/* The name of the previous ad's pair j, or NULL when it is not a (name, entry) pair. */
static inline PyObject *
previous_name(const Scanner *s, Py_ssize_t j)
{
    PyObject *pair = s->previous.pairs[j];
    return PyTuple_CheckExact(pair) && PyTuple_GET_SIZE(pair) == 2
        ? PyTuple_GET_ITEM(pair, 0) : NULL;
}

/* Move the shift for a line (its pair) unlike the previous ad's at position + shift:
 * kept when that line has the same name (another value: a per-ad value); moved on to
 * the previous ad's line of the same name among the next ALIGN_AHEAD (the previous ad
 * holds names this one lacks); else moved back one (this ad holds a name the previous
 * one lacks here), so that the next line is compared with the previous ad's line this
 * one was. Only which line a later line is compared with changes: a line equal to the
 * one it is compared with takes its pair, which equal text makes an equal pair, as
 * the line table's would be. */
static void
align(Scanner *s, Py_ssize_t position, PyObject *pair)
{
    Py_ssize_t j = position + s->shift, n = s->previous.n;
    if (j < 0 || j >= n || !PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2)
        return;
    PyObject *name = PyTuple_GET_ITEM(pair, 0);
    if (previous_name(s, j) == name)
        return;
    for (Py_ssize_t k = 1; k <= ALIGN_AHEAD && j + k < n; k++) {
        if (previous_name(s, j + k) == name) {
            s->shift += k;
            return;
        }
    }
    s->shift--;
}

/* pending_add for a line that was not the previous ad's at its position: the shift
 * aligned first (align). */
static inline int
add_unlike(Scanner *s, Py_ssize_t position, PyObject *pair, const char *key,
           Py_ssize_t size, int kind, int fresh)
{
    align(s, position, pair);
    return pending_add(s, pair, key, size, kind, fresh);
}

int
scanner_feed_member(Scanner *s, PyObject *text, const void *data, int kind,
                    Py_ssize_t pos, Py_ssize_t stop, PyObject *done, int comma,
                    int unlike)
{
    const char *key = (const char *)data + pos * kind;
    Py_ssize_t size = (stop - pos) * kind;
    Py_ssize_t position = s->pending.n;
    if (position == 0)
        s->shift = 0;
    Py_ssize_t j = compared(s, position);
    PyObject *pair = unlike || j < 0 ? NULL : adlines_same(&s->previous, j, key, size, kind);
    if (pair != NULL) {
        return pending_add(s, pair, key, size, kind, 0);
    }
    int value_new = 0;
    PyObject *made = NULL;  /* a pair plain_pair made for a fresh position */
    if (kind == PyUnicode_1BYTE_KIND && adlines_fresh(&s->previous, j)) {
        /* The last line here was a per-ad value: this one most likely is too, so it is
         * read without looking it up or storing it in the line table (a lookup that
         * misses and a store the roll drops were a third of reading a job queue). A
         * line that repeats after all is found by its value: the value table still
         * gives its Literal, and the position is tracked again. */
        pair = plain_pair(s, (const unsigned char *)key, size, &value_new);
        if (pair == NULL && PyErr_Occurred())
            return -1;
        if (pair != NULL && value_new) {
            int r = add_unlike(s, position, pair, key, size, kind, 1);
            Py_DECREF(pair);
            return r;
        }
        /* a value seen before: the line may be stored, and its pair is the one to
         * share (the ads keep the pair's entry) */
        made = pair;
    }
    uint64_t h = oldscan_hash(key, size, s->key);
    pair = oldscan_get(&s->lines, h, key, size, kind);
    if (pair != NULL) {
        Py_XDECREF(made);
        int r = add_unlike(s, position, pair, key, size, kind, 0);
        Py_DECREF(pair);
        return r;
    }
    if (PyErr_Occurred()) {
        Py_XDECREF(made);
        return -1;
    }
    if (made != NULL) {
        pair = made;
    }
    else if (kind == PyUnicode_1BYTE_KIND) {
        pair = plain_pair(s, (const unsigned char *)key, size, &value_new);
        if (pair == NULL && PyErr_Occurred())
            return -1;
    }
    int fresh = pair != NULL && value_new;
    if (pair == NULL) {
        pair = call_miss(s, text, data, pos, stop, comma);
        if (pair == NULL)
            return -1;
        if (pair == Py_None) {  /* old form: a comment; JSON: not a plain member */
            Py_DECREF(pair);
            return s->json ? scanner_hand_over(s, s->lineno) : 0;
        }
        if (pair == s->end && !s->json) {
            Py_DECREF(pair);
            return scanner_end_ad(s, done, 0);
        }
    }
    int r = oldscan_put(&s->lines, h, key, size, kind, pair);
    if (r == 0)
        r = add_unlike(s, position, pair, key, size, kind, fresh);
    Py_DECREF(pair);
    return r;
}

/* Whether n bytes at p are all ASCII: eight at a time. */
static int
all_ascii(const char *p, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    uint64_t high = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        high |= w;
    }
    for (; i < n; i++)
        high |= (unsigned char)p[i];
    return (high & 0x8080808080808080ULL) == 0;
}

/* The lines of text (str: data, kind, n given; NULL: ASCII bytes at data) fed one by
 * one (see Scanner_feed). */
static PyObject *
feed_text(Scanner *s, PyObject *text, const void *data, int kind, Py_ssize_t n,
          PyObject *done)
{
    Py_ssize_t pos = 0;
    /* the ads handed out before this call are the caller's: none is copied */
    scanner_forget_dicts(s);
    int after_run = 0;
    /* whether the run last tried found the next line unlike the previous ad's at its
     * position (adlines_run): it is not compared again (adlines_same) */
    int unlike = 0;
    while (pos < n) {
        if (!s->json && kind == PyUnicode_1BYTE_KIND && !after_run) {
            /* the next lines may repeat the previous ad's: a cluster's jobs, a
             * machine's slots (the line after a run differs: it is read alone) */
            Py_ssize_t taken = feed_run(s, data, pos, n, &unlike);
            if (taken < 0) {
                scanner_forget_dicts(s);
                return NULL;
            }
            if (taken > 0) {
                pos += taken;
                after_run = 1;
                continue;
            }
        }
        else if (!after_run) {
            unlike = 0;  /* no run tried for this line */
        }
        after_run = 0;
        Py_ssize_t stop = next_line_end(data, kind, pos, n);
        int r = s->json ? scanner_json_line(s, text, data, kind, pos, stop, done)
                        : feed_line(s, text, data, kind, pos, stop, done, unlike);
        unlike = 0;
        if (r != 0) {
            scanner_forget_dicts(s);
            if (r < 0)
                return NULL;
            s->stopped = 1;
            return PyLong_FromSsize_t(s->handover);
        }
        pos = stop;
    }
    scanner_forget_dicts(s);
    Py_RETURN_NONE;
}

static PyObject *
Scanner_feed(Scanner *s, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "feed(text: str | bytes-like, done: list)");
        return NULL;
    }
    PyObject *text = args[0];
    PyObject *done = args[1];
    if (s->stopped) {
        PyErr_SetString(PyExc_RuntimeError, "the scanner handed over: it reads no more");
        return NULL;
    }
    if (PyUnicode_Check(text)) {
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(text) < 0)  /* a no-op, deprecated, from 3.12 on */
            return NULL;
#endif
        return feed_text(s, text, PyUnicode_DATA(text), PyUnicode_KIND(text),
                         PyUnicode_GET_LENGTH(text), done);
    }
    /* UTF-8 bytes (old form): ASCII read as they are (its characters are its bytes,
     * as in a one-byte str, so every line reads as it would from the decoded str),
     * anything else decoded first, as a text file object decodes them */
    if (s->json) {
        PyErr_SetString(PyExc_TypeError, "feed: JSON text must be a str");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(text, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *result;
    if (all_ascii(view.buf, view.len)) {
        result = feed_text(s, NULL, view.buf, PyUnicode_1BYTE_KIND, view.len, done);
    }
    else {
        PyObject *decoded = PyUnicode_DecodeUTF8(view.buf, view.len, "surrogateescape");
        result = decoded == NULL ? NULL
            : feed_text(s, decoded, PyUnicode_DATA(decoded), PyUnicode_KIND(decoded),
                        PyUnicode_GET_LENGTH(decoded), done);
        Py_XDECREF(decoded);
    }
    PyBuffer_Release(&view);
    return result;
}

static PyObject *
Scanner_finish(Scanner *s, PyObject *done)
{
    if (!PyList_Check(done)) {
        PyErr_SetString(PyExc_TypeError, "finish(done: list)");
        return NULL;
    }
    if (s->json) {
        /* an input that ended early: the general reader reads its end and says so */
        Py_ssize_t line;
        int blank;
        if (s->stopped || !scanner_json_at_end(s, &line, &blank))
            Py_RETURN_NONE;
        pending_clear(s);
        s->stopped = 1;
        return Py_BuildValue("(nsO)", line, scanner_json_mode(s), blank ? Py_True : Py_False);
    }
    /* the last ad ends at the end of the input: built as any other, so it keeps the
     * mark of the run it ends (no template: the ads before it are the caller's) */
    scanner_forget_dicts(s);
    if (scanner_end_ad(s, done, 0) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* -- the type ---------------------------------------------------------------------- */

static int
Scanner_init(Scanner *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"literal_type", "value_descr", "names", "new_name", "miss",
                             "from_attrs", "old_ad", "end", "limit", "key", "json", NULL};
    PyObject *literal_type, *value_descr, *names, *new_name, *miss, *from_attrs, *old_ad,
        *end;
    Py_ssize_t limit;
    unsigned long long key;
    int json = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OO!OOOOOnK|p", kwlist, &PyType_Type,
                                     &literal_type, &value_descr, &PyDict_Type, &names,
                                     &new_name, &miss, &from_attrs, &old_ad, &end, &limit,
                                     &key, &json))
        return -1;
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "limit must be positive");
        return -1;
    }
    if (Py_TYPE(value_descr)->tp_descr_set == NULL) {
        PyErr_SetString(PyExc_TypeError, "value_descr must be a settable descriptor");
        return -1;
    }
    if (s->literal_type != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a Scanner is initialised once");
        return -1;
    }
    s->literal_type = (PyTypeObject *)Py_NewRef(literal_type);
    s->value_descr = Py_NewRef(value_descr);
    s->value_offset = -1;
    if (Py_IS_TYPE(value_descr, &PyMemberDescr_Type)
            && PyDescr_TYPE(value_descr) == (PyTypeObject *)literal_type) {
        PyMemberDef *member = ((PyMemberDescrObject *)value_descr)->d_member;
        if ((member->type == T_OBJECT_EX || member->type == T_OBJECT)
                && !(member->flags & READONLY) && member->offset > 0
                && member->offset + (Py_ssize_t)sizeof(PyObject *)
                    <= ((PyTypeObject *)literal_type)->tp_basicsize)
            s->value_offset = member->offset;
    }
    s->names = Py_NewRef(names);
    s->new_name = Py_NewRef(new_name);
    s->miss = Py_NewRef(miss);
    s->from_attrs = Py_NewRef(from_attrs);
    s->old_ad = Py_NewRef(old_ad);
    s->end = Py_NewRef(end);
    s->heads = PyMem_Calloc(HEADS_POSITIONS, sizeof(Head));
    if (s->heads == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    s->lines.limit = (size_t)limit;
    s->values.limit = (size_t)limit;
    s->named.limit = (size_t)limit;
    s->key = (uint64_t)key;
    s->json = json;
    return 0;
}

static void
Scanner_dealloc(Scanner *s)
{
    oldscan_clear(&s->lines);
    oldscan_clear(&s->values);
    oldscan_clear(&s->named);
    adlines_free(&s->pending);
    adlines_free(&s->previous);
    heads_free(s->heads);
    scanner_free_shapes(s);
    Py_XDECREF(s->layout);
    PyMem_Free(s->varying);
    Py_XDECREF(s->literal_type);
    Py_XDECREF(s->value_descr);
    Py_XDECREF(s->names);
    Py_XDECREF(s->new_name);
    Py_XDECREF(s->miss);
    Py_XDECREF(s->from_attrs);
    Py_XDECREF(s->old_ad);
    Py_XDECREF(s->end);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *
Scanner_lines(Scanner *s, void *closure)
{
    return PyLong_FromSsize_t(s->lineno);
}

static PyObject *
Scanner_stored(Scanner *s, void *closure)
{
    return PyLong_FromSize_t(s->lines.young.used + s->lines.old.used);
}

static PyMethodDef Scanner_methods[] = {
    {"feed", (PyCFunction)(void (*)(void))Scanner_feed, METH_FASTCALL,
     "feed(text, done): read the lines of text (ending at a line end, but for an "
     "input's last piece; old form: a str, or UTF-8 bytes read as surrogateescape "
     "decodes them), appending finished ads to done; None, or (JSON) the line the "
     "general reader is to resume at."},
    {"finish", (PyCFunction)Scanner_finish, METH_O,
     "finish(done): append the ad the input's last lines left open, if any; JSON: "
     "None, or (line, mode, blank) for an input that ended early."},
    {NULL, NULL, 0, NULL},
};

static PyObject *
Scanner_mode(Scanner *s, void *closure)
{
    return PyUnicode_FromString(scanner_json_mode(s));
}

static PyObject *
Scanner_keep_from(Scanner *s, void *closure)
{
    return PyLong_FromSsize_t(scanner_json_keep_from(s));
}

static PyGetSetDef Scanner_getset[] = {
    {"mode", (getter)Scanner_mode, NULL,
     "JSON: the general reader's state at this scanner's", NULL},
    {"keep_from", (getter)Scanner_keep_from, NULL,
     "JSON: the first line a hand over can resume at", NULL},
    {"lines", (getter)Scanner_lines, NULL, "lines read so far", NULL},
    {"stored", (getter)Scanner_stored, NULL, "lines held in both generations", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ScannerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "condorlite.core.classad._oldscan.Scanner",
    .tp_basicsize = sizeof(Scanner),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Old-form lines to ads (see oldscan.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Scanner_init,
    .tp_dealloc = (destructor)Scanner_dealloc,
    .tp_methods = Scanner_methods,
    .tp_getset = Scanner_getset,
};

static PyMethodDef module_methods[] = {
    {"carve_amounts", (PyCFunction)(void (*)(void))oldscan_carve_amounts, METH_FASTCALL,
     "carve_amounts(vals, had, moves): a carve's new values and amounts left, and "
     "whether no value is a float, or None off its fast path (carve.c)."},
    {"changes", (PyCFunction)(void (*)(void))oldscan_changes, METH_FASTCALL,
     "changes(tables, keys, marks=None): (the rows where some key's value is not the "
     "row before's very object, the values at row 0 and at those changes; see "
     "columns.c)."},
    {"descents", (PyCFunction)(void (*)(void))oldscan_descents, METH_FASTCALL,
     "descents(rows, members): 0 and the rows whose members' values, as a tuple, are "
     "<= the row before's; see columns.c."},
    {"entry_key", (PyCFunction)(void (*)(void))oldscan_entry_key, METH_FASTCALL,
     "entry_key(table, names): the identities of table's values for names, as bytes "
     "(see condorlite/core/entry_keys.py)."},
    {"expressions", (PyCFunction)(void (*)(void))oldscan_expressions, METH_FASTCALL,
     "expressions(tables, keys, marks, literal): the distinct values (by identity) of "
     "the keys' columns that are present and whose item 1 is not of type literal; see "
     "columns.c."},
    {"find_split", (PyCFunction)(void (*)(void))oldscan_find_split, METH_FASTCALL,
     "find_split(table, splits, kind, literal, member): (the place of the first split "
     "whose records of kind hold table's entries, the record, its literals' values) or "
     "None (see condorlite/core/entry_keys.py)."},
    {"gather", (PyCFunction)(void (*)(void))oldscan_gather, METH_FASTCALL,
     "gather(rows, row_members, ad_type, ad_members): (each row's ad's table, its run "
     "mark, the row's id) as three lists, or None when some ad is not of ad_type; see "
     "columns.c."},
    {"literal_make", (PyCFunction)(void (*)(void))oldscan_literal_make, METH_FASTCALL,
     "literal_make(items, at, extra, xat, skip, group, room, last, requests, left, "
     "pair_of, known, boxed, kept, run, batch, dependent, post, tail): ordered_make over "
     "a split static's order merged with a class's offsets (ordered.c)."},
    {"ordered_make", (PyCFunction)(void (*)(void))oldscan_ordered_make, METH_FASTCALL,
     "ordered_make(items, at, room, last, requests, left, pair_of, known, boxed, kept, "
     "run, batch, dependent, post, tail): an ordered source's items made into entries "
     "(ordered.c)."},
    {"run_jobs", (PyCFunction)(void (*)(void))oldscan_run_jobs, METH_FASTCALL,
     "run_jobs(ads, start, mark, cluster, out, types): the Jobs of a reader run's job "
     "ads appended to out, and the place of the first ad not taken; see jobruns.c."},
    {"runs", (PyCFunction)(void (*)(void))oldscan_runs, METH_FASTCALL,
     "runs(rows, row_members, ad_type, ad_members): gather's rows as the reader's runs "
     "(starts, tables, marks of each run; each row's id), or None; see columns.c."},
    {"sync_moves", (PyCFunction)(void (*)(void))oldscan_sync_moves, METH_FASTCALL,
     "sync_moves(offers, at, context): StaticOrders.sync's step of each offer from at "
     "on its common path; the index of the first offer not taken (sync.c)."},
    {"select", (PyCFunction)(void (*)(void))oldscan_select, METH_FASTCALL,
     "select(rows, member, value): the rows whose member's value == value, in order, "
     "or None when some row is not of the member's type; see columns.c."},
    {"slotted", (PyCFunction)(void (*)(void))oldscan_slotted, METH_FASTCALL,
     "slotted(members, type, *values): a new instance of type (no __init__ run) with "
     "its member descriptors set to values in order, those past them to None."},
    {"table_slot", (PyCFunction)(void (*)(void))oldscan_table_slot, METH_FASTCALL,
     "table_slot(members, lazy_type): LazyClassAd._attrs, a data descriptor over "
     "ClassAd's table member that reads a whole table, a lazy one made whole (and the "
     "ad a ClassAd) on its first read (table.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "condorlite.core.classad._oldscan",
    .m_doc = "Old-form ad reading, the per-line part (see oldscan.py), and the keys of "
             "the reading pass's memos (entry_keys.py).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__oldscan(void)
{
    if (PyType_Ready(&ScannerType) < 0 || PyType_Ready(&TableSlotType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&ScannerType);
    if (PyModule_AddObject(m, "Scanner", (PyObject *)&ScannerType) < 0) {
        Py_DECREF(&ScannerType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&TableSlotType);
    if (PyModule_AddObject(m, "TableSlot", (PyObject *)&TableSlotType) < 0) {
        Py_DECREF(&TableSlotType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
