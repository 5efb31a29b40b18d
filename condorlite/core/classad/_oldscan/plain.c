/* The lines read in C: "head = value" with a plain value (scanner.h). */

#include <string.h>

#include "scanner.h"
#include "values.h"

/* A new Literal of the value text v (oldscan_plain_value), a new reference; NULL
 * without an exception when the text is not plain, NULL with one on failure. */
static PyObject *
plain_literal(Scanner *s, const unsigned char *v, Py_ssize_t n)
{
    PyObject *value = oldscan_plain_value(v, n);
    if (value == NULL)
        return NULL;
    PyObject *literal = s->literal_type->tp_alloc(s->literal_type, 0);
    if (literal != NULL
            && Py_TYPE(s->value_descr)->tp_descr_set(s->value_descr, literal, value) < 0)
        Py_CLEAR(literal);
    Py_DECREF(value);
    return literal;
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
    /* one Literal for a value text however many names hold it (a job's GlobalJobId
     * and SubmitterGlobalJobId; a slot's Disk and TotalDisk), as OLD_VALUES shares */
    uint64_t h = oldscan_hash((const char *)v, end - v, s->key);
    PyObject *literal = oldscan_get(&s->values, h, (const char *)v, end - v,
                                PyUnicode_1BYTE_KIND);
    *value_new = literal == NULL;
    if (literal == NULL) {
        if (PyErr_Occurred())
            return NULL;
        literal = plain_literal(s, v, end - v);
        if (literal == NULL)
            return NULL;  /* not plain (no exception), or an error (propagated) */
        if (oldscan_put(&s->values, h, (const char *)v, end - v, PyUnicode_1BYTE_KIND,
                    literal) < 0) {
            Py_DECREF(literal);
            return NULL;
        }
    }
    PyObject *head = NULL, *named = NULL, *entry = NULL, *pair = NULL;
    Py_ssize_t position = s->pending.n;
    named = heads_get(s->heads, position, (const char *)p, eq - p);
    if (named != NULL) {
        Py_INCREF(named);
    }
    else {
        head = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, p, eq - p);
        if (head == NULL)
            goto done;
        named = PyDict_GetItemWithError(s->names, head);
        if (named != NULL) {
            Py_INCREF(named);
        }
        else {
            if (PyErr_Occurred())
                goto done;
            named = PyObject_CallOneArg(s->new_name, head);
            if (named == NULL)
                goto done;
        }
        if (named == Py_None)
            goto done;  /* not a plain name: the slow way decides */
        if (!PyTuple_CheckExact(named) || PyTuple_GET_SIZE(named) != 2) {
            PyErr_SetString(PyExc_TypeError, "a name must be a (lower, spelling) pair");
            goto done;
        }
        heads_put(s->heads, position, (const char *)p, eq - p, named);
    }
    entry = PyTuple_Pack(2, PyTuple_GET_ITEM(named, 1), literal);
    if (entry == NULL)
        goto done;
    pair = PyTuple_Pack(2, PyTuple_GET_ITEM(named, 0), entry);
done:
    Py_XDECREF(head);
    Py_XDECREF(named);
    Py_XDECREF(literal);
    Py_XDECREF(entry);
    return pair;
}
