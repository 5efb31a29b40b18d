/* The ad lines of adlines.h. */

#include <string.h>

#include "adlines.h"

static int
grow_refs(AdLines *a)
{
    Py_ssize_t cap = a->cap ? a->cap * 2 : 256;
    PyObject **pairs = PyMem_Realloc(a->pairs, (size_t)cap * sizeof(PyObject *));
    if (pairs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    a->pairs = pairs;
    LineRef *lines = PyMem_Realloc(a->lines, (size_t)cap * sizeof(LineRef));
    if (lines == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    a->lines = lines;
    a->cap = cap;
    return 0;
}

/* Room for size more bytes of text; 0, or -1 with an exception. */
static int
grow_text(AdLines *a, size_t size)
{
    if (a->text_cap - a->used >= size)
        return 0;
    size_t cap = a->text_cap ? a->text_cap : 16384;
    while (cap - a->used < size)
        cap *= 2;
    char *text = PyMem_Realloc(a->text, cap);
    if (text == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    a->text = text;
    a->text_cap = cap;
    return 0;
}

int
adlines_add(AdLines *a, PyObject *pair, const char *key, Py_ssize_t size, int kind)
{
    if (a->n == a->cap && grow_refs(a) < 0)
        return -1;
    LineRef *ref = &a->lines[a->n];
    ref->off = -1;
    ref->size = size;
    ref->kind = kind;
    if (size <= ADLINES_KEEP_MAX) {
        if (grow_text(a, (size_t)size) < 0)
            return -1;
        memcpy(a->text + a->used, key, (size_t)size);
        ref->off = (Py_ssize_t)a->used;
        a->used += (size_t)size;
    }
    Py_INCREF(pair);
    a->pairs[a->n++] = pair;
    return 0;
}

PyObject *
adlines_same(const AdLines *a, Py_ssize_t i, const char *key, Py_ssize_t size, int kind)
{
    if (i >= a->n)
        return NULL;
    const LineRef *ref = &a->lines[i];
    if (ref->size != size || ref->kind != kind || ref->off < 0
            || memcmp(a->text + ref->off, key, (size_t)size) != 0)
        return NULL;
    return a->pairs[i];
}

void
adlines_clear(AdLines *a)
{
    for (Py_ssize_t i = 0; i < a->n; i++)
        Py_DECREF(a->pairs[i]);
    a->n = 0;
    a->used = 0;
}

void
adlines_free(AdLines *a)
{
    adlines_clear(a);
    PyMem_Free(a->pairs);
    PyMem_Free(a->lines);
    PyMem_Free(a->text);
    a->pairs = NULL;
    a->lines = NULL;
    a->text = NULL;
    a->cap = 0;
    a->text_cap = 0;
}

PyObject *
heads_get(const Head *heads, Py_ssize_t i, const char *p, Py_ssize_t n)
{
    if (heads == NULL || i >= HEADS_POSITIONS || n > HEADS_MAX)
        return NULL;
    const Head *h = &heads[i];
    if (h->named == NULL || h->size != n || memcmp(h->text, p, (size_t)n) != 0)
        return NULL;
    return h->named;
}

void
heads_put(Head *heads, Py_ssize_t i, const char *p, Py_ssize_t n, PyObject *named)
{
    if (heads == NULL || i >= HEADS_POSITIONS || n > HEADS_MAX || n < 1)
        return;
    Head *h = &heads[i];
    Py_INCREF(named);
    Py_XSETREF(h->named, named);
    memcpy(h->text, p, (size_t)n);
    h->size = n;
}

void
heads_free(Head *heads)
{
    if (heads == NULL)
        return;
    for (Py_ssize_t i = 0; i < HEADS_POSITIONS; i++)
        Py_XDECREF(heads[i].named);
    PyMem_Free(heads);
}
