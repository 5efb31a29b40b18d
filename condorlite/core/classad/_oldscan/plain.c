/* The lines read in C: "head = value" with a plain value (scanner.h). */

#include <string.h>

#include "scanner.h"
#include "values.h"

PyObject *
scanner_literal(Scanner *s, PyObject *value)
{
    PyObject *literal = s->literal_type->tp_alloc(s->literal_type, 0);
    if (literal != NULL && s->value_offset >= 0) {
        /* the member's slot, empty in a new instance: what its setter would do */
        *(PyObject **)((char *)literal + s->value_offset) = value;
        return literal;
    }
    if (literal != NULL
            && Py_TYPE(s->value_descr)->tp_descr_set(s->value_descr, literal, value) < 0)
        Py_CLEAR(literal);
    Py_DECREF(value);
    return literal;
}

/* The tuple (a, b), a new reference (PyTuple_Pack without its argument list). */
static inline PyObject *
two(PyObject *a, PyObject *b)
{
    PyObject *t = PyTuple_New(2);
    if (t != NULL) {
        PyTuple_SET_ITEM(t, 0, Py_NewRef(a));
        PyTuple_SET_ITEM(t, 1, Py_NewRef(b));
    }
    return t;
}

/* A new Literal of the value text v (oldscan_plain_value), a new reference; NULL
 * without an exception when the text is not plain, NULL with one on failure. */
static PyObject *
plain_literal(Scanner *s, const unsigned char *v, Py_ssize_t n)
{
    PyObject *value = oldscan_plain_value(v, n);
    return value == NULL ? NULL : scanner_literal(s, value);
}

PyObject *
scanner_value(Scanner *s, const unsigned char *v, Py_ssize_t n, literal_maker make,
              int *value_new)
{
    /* one Literal for a value text however many names hold it (a job's GlobalJobId
     * and SubmitterGlobalJobId; a slot's Disk and TotalDisk), as OLD_VALUES shares */
    uint64_t h = oldscan_hash((const char *)v, n, s->key);
    PyObject *literal = oldscan_get(&s->values, h, (const char *)v, n,
                                    PyUnicode_1BYTE_KIND);
    *value_new = literal == NULL;
    if (literal != NULL || PyErr_Occurred())
        return literal;
    literal = make(s, v, n);
    if (literal == NULL)
        return NULL;  /* not plain (no exception), or an error (propagated) */
    if (oldscan_put(&s->values, h, (const char *)v, n, PyUnicode_1BYTE_KIND, literal) < 0) {
        Py_DECREF(literal);
        return NULL;
    }
    return literal;
}

/* The pair of the previous ad's line compared with the current ad's at position
 * (scanner.h: shift) when that line is old-form text of the same head, "head=" (its
 * name is the one `names` or `new_name` gives the head: a line of that head read any
 * other way, by `miss` too, holds that name), a borrowed reference; else NULL. A
 * slot's per-slot values are new lines of the previous ad's names: their names are
 * found here when a position's last head (heads) is another slot type's. */
static PyObject *
compared_pair(const Scanner *s, Py_ssize_t position, const unsigned char *head,
              Py_ssize_t head_n)
{
    Py_ssize_t j = position + s->shift;
    if (s->json || j < 0 || j >= s->previous.n)
        return NULL;
    const LineRef *ref = &s->previous.lines[j];
    if (ref->off < 0 || ref->kind != PyUnicode_1BYTE_KIND || ref->size <= head_n)
        return NULL;
    const char *line = s->previous.text + ref->off;
    if (line[head_n] != '=' || memcmp(line, head, (size_t)head_n) != 0)
        return NULL;
    PyObject *pair = s->previous.pairs[j];
    if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2)
        return NULL;
    PyObject *entry = PyTuple_GET_ITEM(pair, 1);
    if (!PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) != 2)
        return NULL;
    return pair;
}

PyObject *
scanner_named_pair(Scanner *s, const unsigned char *head, Py_ssize_t head_n,
                   const unsigned char *name, Py_ssize_t name_n, PyObject *literal)
{
    PyObject *text = NULL, *named = NULL, *entry = NULL, *pair = NULL;
    Py_ssize_t position = s->pending.n;
    PyObject *before = compared_pair(s, position, head, head_n);
    if (before != NULL) {
        entry = two(PyTuple_GET_ITEM(PyTuple_GET_ITEM(before, 1), 0), literal);
        if (entry == NULL)
            return NULL;
        pair = two(PyTuple_GET_ITEM(before, 0), entry);
        Py_DECREF(entry);
        return pair;
    }
    named = heads_get(s->heads, position, (const char *)head, head_n);
    if (named != NULL) {
        Py_INCREF(named);
    }
    else {
        /* the name text's pair as `names` or `new_name` gave it before: the scanner's
         * own table spares making the text's string and hashing it for the dict (the
         * names are interned, so a pair kept here holds the very strings the dict's
         * would) */
        uint64_t h = oldscan_hash((const char *)name, name_n, s->key);
        named = oldscan_get(&s->named, h, (const char *)name, name_n, PyUnicode_1BYTE_KIND);
        if (named == NULL) {
            if (PyErr_Occurred())
                goto done;
            text = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, name, name_n);
            if (text == NULL)
                goto done;
            named = PyDict_GetItemWithError(s->names, text);
            if (named != NULL) {
                Py_INCREF(named);
            }
            else {
                if (PyErr_Occurred())
                    goto done;
                named = PyObject_CallOneArg(s->new_name, text);
                if (named == NULL)
                    goto done;
            }
            if (named == Py_None)
                goto done;  /* not a plain name: the slow way decides */
            if (!PyTuple_CheckExact(named) || PyTuple_GET_SIZE(named) != 2) {
                PyErr_SetString(PyExc_TypeError, "a name must be a (lower, spelling) pair");
                goto done;
            }
            if (oldscan_put(&s->named, h, (const char *)name, name_n, PyUnicode_1BYTE_KIND,
                            named) < 0)
                goto done;
        }
        heads_put(s->heads, position, (const char *)head, head_n, named);
    }
    entry = two(PyTuple_GET_ITEM(named, 1), literal);
    if (entry == NULL)
        goto done;
    pair = two(PyTuple_GET_ITEM(named, 0), entry);
done:
    Py_XDECREF(text);
    Py_XDECREF(named);
    Py_XDECREF(entry);
    return pair;
}

PyObject *
scanner_plain_pair(Scanner *s, const unsigned char *p, Py_ssize_t n, int *value_new)
{
    const unsigned char *eq = memchr(p, '=', (size_t)n);
    if (eq == NULL || eq == p)
        return NULL;
    const unsigned char *v = eq + 1;
    const unsigned char *end = p + n;
    if (v < end && *v == '=')
        return NULL;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && oldscan_is_blank(end[-1]))
        end--;
    PyObject *literal = scanner_value(s, v, end - v, plain_literal, value_new);
    if (literal == NULL)
        return NULL;
    /* the name is looked up by the whole head (oldform.OLD_NAMES's keys) */
    PyObject *pair = scanner_named_pair(s, p, eq - p, p, eq - p, literal);
    Py_DECREF(literal);
    return pair;
}
