/* The text tables of tables.h. */

#include <string.h>

#include "tables.h"

/* -- the keyed hash ---------------------------------------------------------------- */

static inline uint64_t
mix(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    /* 64 x 64 -> 128-bit multiply folded: the wyhash/mum mixing step */
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    /* compilers without 128-bit integers: a 64-bit multiply and xor-shifts */
    uint64_t r = (a ^ (b >> 29)) * (b | 1);
    return r ^ (r >> 32) ^ (b << 7);
#endif
}

uint64_t
oldscan_hash(const char *p, Py_ssize_t n, uint64_t key)
{
    uint64_t h = key ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL);
    while (n >= 16) {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        h = mix(a ^ h ^ 0xA0761D6478BD642FULL, b ^ 0xE7037ED1A0B428DBULL) ^ h;
        p += 16;
        n -= 16;
    }
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        memcpy(&a, p, 8);
        memcpy(&b, p + n - 8, 8);
    }
    else if (n > 0) {
        memcpy(&a, p, (size_t)n);
    }
    return mix(a ^ h ^ 0x8EBC6AF09C88C6E3ULL, b ^ key ^ 0x589965CC75374CC3ULL);
}

/* -- tables ------------------------------------------------------------------------ */

static inline uint32_t
tag_of(uint64_t h)
{
    return (uint32_t)(h >> 32) | 1u;
}

/* Drop the table's references and key copies; its arrays too unless `keep`, when its
 * tags are zeroed for the table to be filled again at the same capacity. A slot is
 * taken when its tag is not 0 (an empty slot's other fields are not read). */
static void
table_empty(Table *t, int keep)
{
    if (t->slots != NULL) {
        for (size_t i = 0; i <= t->mask; i++) {
            if (t->tags[i] != 0)
                Py_DECREF(t->slots[i].object);
        }
        if (keep) {
            memset(t->tags, 0, (t->mask + 1) * sizeof(uint32_t));
        }
        else {
            PyMem_Free(t->slots);
            PyMem_Free(t->tags);
            t->slots = NULL;
            t->tags = NULL;
            t->mask = 0;
        }
    }
    while (t->blocks != NULL) {
        Block *next = t->blocks->next;
        PyMem_RawFree(t->blocks);
        t->blocks = next;
    }
    t->used = 0;
}

static void
table_clear(Table *t)
{
    table_empty(t, 0);
}

static PyObject *
table_get(Table *t, uint64_t h, const char *text, Py_ssize_t size, int kind)
{
    if (t->slots == NULL)
        return NULL;
    uint32_t tag = tag_of(h);
    size_t i = (size_t)h & t->mask;
    for (;;) {
        uint32_t found = t->tags[i];
        if (found == 0)
            return NULL;
        if (found == tag) {
            Entry *e = &t->slots[i];
            if (e->hash == h && e->size == size && e->kind == kind
                    && memcmp(e->text, text, (size_t)size) == 0)
                return e->object;
        }
        i = (i + 1) & t->mask;
    }
}

static int
table_grow(Table *t)
{
    size_t capacity = t->slots == NULL ? 1024 : (t->mask + 1) * 2;
    Entry *slots = PyMem_Calloc(capacity, sizeof(Entry));
    uint32_t *tags = PyMem_Calloc(capacity, sizeof(uint32_t));
    if (slots == NULL || tags == NULL) {
        PyMem_Free(slots);
        PyMem_Free(tags);
        PyErr_NoMemory();
        return -1;
    }
    if (t->slots != NULL) {
        for (size_t i = 0; i <= t->mask; i++) {
            if (t->tags[i] == 0)
                continue;
            Entry *e = &t->slots[i];
            size_t j = (size_t)e->hash & (capacity - 1);
            while (tags[j] != 0)
                j = (j + 1) & (capacity - 1);
            slots[j] = *e;
            tags[j] = t->tags[i];
        }
        PyMem_Free(t->slots);
        PyMem_Free(t->tags);
    }
    t->slots = slots;
    t->tags = tags;
    t->mask = capacity - 1;
    return 0;
}

/* Store a copy of the key and a new reference to object; the key must be absent. */
static int
table_put(Table *t, uint64_t h, const char *text, Py_ssize_t size, int kind,
          PyObject *object)
{
    if (t->slots == NULL || (t->used + 1) * 2 > t->mask + 1) {
        if (table_grow(t) < 0)
            return -1;
    }
    Block *b = t->blocks;
    if (b == NULL || b->size - b->used < (size_t)size + 1) {
        size_t room = (size_t)size + 1 > BLOCK_SIZE ? (size_t)size + 1 : BLOCK_SIZE;
        b = PyMem_RawMalloc(sizeof(Block) + room);
        if (b == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->next = t->blocks;
        b->used = 0;
        b->size = room;
        t->blocks = b;
    }
    char *copy = b->data + b->used;  /* +1: an empty key still has a non-NULL copy */
    b->used += (size_t)size + 1;
    memcpy(copy, text, (size_t)size);
    size_t i = (size_t)h & t->mask;
    while (t->tags[i] != 0)
        i = (i + 1) & t->mask;
    t->tags[i] = tag_of(h);
    Entry *e = &t->slots[i];
    e->hash = h;
    e->size = size;
    e->kind = kind;
    e->text = copy;
    Py_INCREF(object);
    e->object = object;
    t->used++;
    return 0;
}

/* TextCache.put: roll the generations when the young one is full, then store. */
int
oldscan_put(Generations *g, uint64_t h, const char *text, Py_ssize_t size, int kind,
        PyObject *object)
{
    if (g->young.used >= g->limit) {
        /* the dropped old table's arrays become the young one's, emptied: a young
         * table that fills up to `limit` again needs that capacity, and growing to it
         * from empty allocated, zeroed and rehashed every size on the way (about 3 %
         * of reading a job queue whose per-job values roll the generations often) */
        Table dropped = g->old;
        g->old = g->young;
        table_empty(&dropped, 1);
        g->young = dropped;
    }
    return table_put(&g->young, h, text, size, kind, object);
}

/* TextCache.get: the object stored for the key, a new reference (a key found only in
 * the old table is stored young again); NULL when absent, NULL with an exception on
 * failure. */
PyObject *
oldscan_get(Generations *g, uint64_t h, const char *text, Py_ssize_t size, int kind)
{
    PyObject *object = table_get(&g->young, h, text, size, kind);
    if (object != NULL) {
        Py_INCREF(object);
        return object;
    }
    object = table_get(&g->old, h, text, size, kind);
    if (object == NULL)
        return NULL;
    Py_INCREF(object);  /* the roll in gen_put may drop the old table */
    if (oldscan_put(g, h, text, size, kind, object) < 0) {
        Py_DECREF(object);
        return NULL;
    }
    return object;
}

void
oldscan_clear(Generations *g)
{
    table_clear(&g->young);
    table_clear(&g->old);
}
