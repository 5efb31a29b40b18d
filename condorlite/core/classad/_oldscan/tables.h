/* Bounded tables from text to a Python object, for the old-form scanner (scanner.c).
 *
 * A Table is open addressing over (hash, kind, bytes) keys, at most half full, whose
 * key copies are appended to 1 MiB blocks freed with the table (no allocation per key,
 * nothing left behind among the objects the reader keeps). Generations apply
 * interning.TextCache's policy to two tables. Keys are hashed with a caller's random
 * key, so crafted text cannot force collisions, and compared in full on a hash match.
 */

#ifndef OLDSCAN_TABLES_H
#define OLDSCAN_TABLES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef struct {
    uint64_t hash;
    Py_ssize_t size; /* bytes of text */
    int kind;
    char *text;      /* the key's copy (in the table's blocks); read only where the slot's tag is set */
    PyObject *object;  /* strong reference */
} Entry;

/* The keys' copies, appended to blocks freed together with their table: no allocation
 * per key, and nothing left behind among the ads when a generation is dropped. */
typedef struct Block {
    struct Block *next;
    size_t used;
    size_t size;
    char data[];
} Block;

#define BLOCK_SIZE ((size_t)1 << 20)

typedef struct {
    Entry *slots;
    /* per slot, 32 bits of its key's hash with the low bit set (0: empty): probes read
     * these 4-byte tags, which stay in cache where the 40-byte slots do not, and touch
     * a slot only on a tag match (most lookups of a new line touch none) */
    uint32_t *tags;
    size_t mask;     /* capacity - 1 (capacity a power of two) */
    size_t used;
    Block *blocks;   /* the newest first */
} Table;

/* interning.TextCache's policy: new keys go into the young table; when it holds
 * `limit` keys it becomes the old one (the old one is dropped); a key found only in
 * the old table is stored young again, so a key seen within about `limit` new ones
 * keeps its object. */
typedef struct {
    Table young;
    Table old;
    size_t limit;
} Generations;

/* A keyed 64-bit hash of n bytes (wyhash-style multiply-fold mixing). */
uint64_t oldscan_hash(const char *p, Py_ssize_t n, uint64_t key);

/* TextCache.get: the object stored for the key, a new reference (a key found only in
 * the old table is stored young again); NULL when absent, NULL with an exception on
 * failure. */
PyObject *oldscan_get(Generations *g, uint64_t h, const char *text, Py_ssize_t size,
                      int kind);

/* TextCache.put: roll the generations when the young one is full, then store a copy
 * of the key (which must be absent) and a new reference to object; -1 with an
 * exception on failure. */
int oldscan_put(Generations *g, uint64_t h, const char *text, Py_ssize_t size, int kind,
                PyObject *object);

/* Drop both tables and their references. */
void oldscan_clear(Generations *g);

#endif
