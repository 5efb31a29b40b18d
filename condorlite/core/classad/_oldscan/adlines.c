/* The ad lines of adlines.h. */

#include <stdint.h>
#include <string.h>

#include "adlines.h"

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif

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
adlines_add(AdLines *a, PyObject *pair, const char *key, Py_ssize_t size, int kind,
            int fresh)
{
    if (a->n == a->cap && grow_refs(a) < 0)
        return -1;
    LineRef *ref = &a->lines[a->n];
    ref->off = -1;
    ref->size = size;
    ref->kind = kind;
    ref->fresh = (char)(fresh != 0);
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

/* The number of leading bytes a[0..n) and b[0..n) have in common: 32 bytes at a time
 * where SSE2 is at hand (every x86-64), then eight at a time, the differing byte found
 * from the first differing word's bits. Lines repeated from the previous ad are most of
 * a job queue's bytes (adlines_run): this comparison is the scanner's pass over them. */
static Py_ssize_t
common_prefix(const char *a, const char *b, Py_ssize_t n)
{
    Py_ssize_t i = 0;
#if defined(__SSE2__) && defined(__GNUC__)
    while (i + 32 <= n) {
        __m128i x0 = _mm_loadu_si128((const __m128i *)(a + i));
        __m128i y0 = _mm_loadu_si128((const __m128i *)(b + i));
        __m128i x1 = _mm_loadu_si128((const __m128i *)(a + i + 16));
        __m128i y1 = _mm_loadu_si128((const __m128i *)(b + i + 16));
        unsigned m0 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x0, y0));
        unsigned m1 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x1, y1));
        unsigned m = m0 | (m1 << 16);
        if (m != 0xFFFFFFFFu)
            return i + __builtin_ctz(~m);
        i += 32;
    }
#endif
    while (i + 8 <= n) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return i + (__builtin_ctzll(x ^ y) >> 3);
#else
            break;
#endif
        }
        i += 8;
    }
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

Py_ssize_t
adlines_run(const AdLines *from, Py_ssize_t i, const char *key, Py_ssize_t room,
            Py_ssize_t *bytes, int *unlike)
{
    *bytes = 0;
    *unlike = 1;
    if (i >= from->n || from->lines[i].off < 0)
        return 0;
    /* the kept lines from i on are the copies from lines[i].off to the end of the
     * text, in order, unless a line was too long to keep (off -1: the run stops
     * there, as adlines_same would not take it) */
    Py_ssize_t start = from->lines[i].off;
    Py_ssize_t avail = (Py_ssize_t)from->used - start;
    Py_ssize_t same = common_prefix(from->text + start, key, avail < room ? avail : room);
    Py_ssize_t j = i, end = start;
    while (j < from->n) {
        const LineRef *ref = &from->lines[j];
        /* a line that does not end at a line end (an input's last) is taken alone:
         * the text after it would be compared as the start of the next line */
        if (ref->off < 0 || ref->kind != PyUnicode_1BYTE_KIND
                || (ref->off == end && end + ref->size - start > same))
            break;  /* not kept, not one byte per character, or not repeated */
        if (ref->off != end || ref->size == 0
                || from->text[end + ref->size - 1] != '\n') {
            *unlike = 0;  /* repeated as far as compared: adlines_same decides */
            break;
        }
        end += ref->size;
        j++;
    }
    *bytes = end - start;
    return j - i;
}

int
adlines_add_run(AdLines *a, const AdLines *from, Py_ssize_t i, Py_ssize_t count,
                const char *key, Py_ssize_t bytes)
{
    while (a->cap - a->n < count) {
        if (grow_refs(a) < 0)
            return -1;
    }
    if (grow_text(a, (size_t)bytes) < 0)
        return -1;
    memcpy(a->text + a->used, key, (size_t)bytes);
    Py_ssize_t shift = (Py_ssize_t)a->used - from->lines[i].off;
    for (Py_ssize_t k = 0; k < count; k++) {
        const LineRef *ref = &from->lines[i + k];
        LineRef *to = &a->lines[a->n];
        to->off = ref->off + shift;
        to->size = ref->size;
        to->kind = ref->kind;
        to->fresh = 0;
        PyObject *pair = from->pairs[i + k];
        Py_INCREF(pair);
        a->pairs[a->n++] = pair;
    }
    a->used += (size_t)bytes;
    return 0;
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
