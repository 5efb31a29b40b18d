/* Old-form ad reading, the per-line part in C (see oldscan.py for the contract).
 *
 * A Scanner takes text pieces that end at a line end (the last piece of an input may
 * not) and does, for every line, what oldform._read_batch and oldform._by_line do:
 *
 *   - a line that is exactly "\n" ends the current ad (an ad with no line is none);
 *   - any other line is looked up, by its exact text (line end included), in a
 *     two-generation table of lines read before (the young one first; a line found
 *     only in the old one is copied into the young one), and its stored pair
 *     (lower-case name, (spelling, expr)) is appended to the current ad;
 *   - a line the table lacks is, when the text is one byte per character and the line
 *     is "head = value" with a value that is a string without NUL whose quotes inside
 *     are all written \", a decimal integer of 1 to 18 digits without a leading zero
 *     (optionally negative) or a plain real (plain_value), read here: the head
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
 * An ad's dict is built from its pairs in order; when a name repeats (fewer keys than
 * lines) `old_ad(list of pairs)` builds it instead (first spelling and position, last
 * value), else `from_attrs(dict)`. Finished ads are appended to the list given to
 * feed(); when `miss` raises, the ads finished before the bad line are in that list,
 * the current ad's pairs are kept, and the error propagates.
 *
 * Nothing here interprets ClassAd syntax beyond the two literal forms above; every
 * other decision is the Python callbacks'. Table keys are the line's characters in the
 * text's own storage (kind), hashed with a per-scanner random key, so crafted lines
 * cannot force collisions, and compared in full on a hash match.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint64_t hash;
    Py_ssize_t size; /* bytes of text */
    int kind;
    char *text;      /* the key's copy (in the table's blocks), NULL for an empty slot */
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
    PyObject **pending; /* the current ad's pairs, strong references */
    Py_ssize_t npending;
    Py_ssize_t cap;
    Py_ssize_t lineno;  /* lines read so far */
} Scanner;

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

static uint64_t
hash_bytes(const char *p, Py_ssize_t n, uint64_t key)
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

static void
table_clear(Table *t)
{
    if (t->slots != NULL) {
        for (size_t i = 0; i <= t->mask; i++) {
            Entry *e = &t->slots[i];
            if (e->text != NULL)
                Py_DECREF(e->object);
        }
        PyMem_Free(t->slots);
    }
    while (t->blocks != NULL) {
        Block *next = t->blocks->next;
        PyMem_RawFree(t->blocks);
        t->blocks = next;
    }
    t->slots = NULL;
    t->mask = 0;
    t->used = 0;
}

static PyObject *
table_get(Table *t, uint64_t h, const char *text, Py_ssize_t size, int kind)
{
    if (t->slots == NULL)
        return NULL;
    size_t i = (size_t)h & t->mask;
    for (;;) {
        Entry *e = &t->slots[i];
        if (e->text == NULL)
            return NULL;
        if (e->hash == h && e->size == size && e->kind == kind
                && memcmp(e->text, text, (size_t)size) == 0)
            return e->object;
        i = (i + 1) & t->mask;
    }
}

static int
table_grow(Table *t)
{
    size_t capacity = t->slots == NULL ? 1024 : (t->mask + 1) * 2;
    Entry *slots = PyMem_Calloc(capacity, sizeof(Entry));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (t->slots != NULL) {
        for (size_t i = 0; i <= t->mask; i++) {
            Entry *e = &t->slots[i];
            if (e->text == NULL)
                continue;
            size_t j = (size_t)e->hash & (capacity - 1);
            while (slots[j].text != NULL)
                j = (j + 1) & (capacity - 1);
            slots[j] = *e;
        }
        PyMem_Free(t->slots);
    }
    t->slots = slots;
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
    while (t->slots[i].text != NULL)
        i = (i + 1) & t->mask;
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
static int
gen_put(Generations *g, uint64_t h, const char *text, Py_ssize_t size, int kind,
        PyObject *object)
{
    if (g->young.used >= g->limit) {
        table_clear(&g->old);
        g->old = g->young;
        g->young.slots = NULL;
        g->young.mask = 0;
        g->young.used = 0;
        g->young.blocks = NULL;
    }
    return table_put(&g->young, h, text, size, kind, object);
}

/* TextCache.get: the object stored for the key, a new reference (a key found only in
 * the old table is stored young again); NULL when absent, NULL with an exception on
 * failure. */
static PyObject *
gen_get(Generations *g, uint64_t h, const char *text, Py_ssize_t size, int kind)
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
    if (gen_put(g, h, text, size, kind, object) < 0) {
        Py_DECREF(object);
        return NULL;
    }
    return object;
}

static void
gen_clear(Generations *g)
{
    table_clear(&g->young);
    table_clear(&g->old);
}

/* -- ads --------------------------------------------------------------------------- */

static void
pending_clear(Scanner *s)
{
    for (Py_ssize_t i = 0; i < s->npending; i++)
        Py_DECREF(s->pending[i]);
    s->npending = 0;
}

static int
pending_add(Scanner *s, PyObject *pair)
{
    if (s->npending == s->cap) {
        Py_ssize_t cap = s->cap ? s->cap * 2 : 256;
        PyObject **grown = PyMem_Realloc(s->pending, (size_t)cap * sizeof(PyObject *));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->pending = grown;
        s->cap = cap;
    }
    Py_INCREF(pair);
    s->pending[s->npending++] = pair;
    return 0;
}

/* The current ad, or NULL with an exception; its pairs are released either way. */
static PyObject *
build_ad(Scanner *s)
{
    PyObject *attrs = PyDict_New();
    PyObject *ad = NULL;
    if (attrs == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < s->npending; i++) {
        PyObject *pair = s->pending[i];
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "a line's pair must be a 2-tuple");
            goto done;
        }
        if (PyDict_SetItem(attrs, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)) < 0)
            goto done;
    }
    if (PyDict_GET_SIZE(attrs) == s->npending) {
        ad = PyObject_CallOneArg(s->from_attrs, attrs);
    }
    else {
        PyObject *pairs = PyList_New(s->npending);
        if (pairs == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < s->npending; i++) {
            Py_INCREF(s->pending[i]);
            PyList_SET_ITEM(pairs, i, s->pending[i]);
        }
        ad = PyObject_CallOneArg(s->old_ad, pairs);
        Py_DECREF(pairs);
    }
done:
    Py_XDECREF(attrs);
    pending_clear(s);
    return ad;
}

static int
end_ad(Scanner *s, PyObject *done)
{
    if (s->npending == 0)
        return 0;
    PyObject *ad = build_ad(s);
    if (ad == NULL)
        return -1;
    int r = PyList_Append(done, ad);
    Py_DECREF(ad);
    return r;
}

/* -- lines the table lacks ---------------------------------------------------------- */

static int
is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* A string value: the text between the quotes with each \" read as a quote and any
 * other backslash as itself (the old string rule), when every quote inside is written
 * \" and there is no NUL; NULL without an exception otherwise. */
static PyObject *
plain_string(const unsigned char *inside, Py_ssize_t m)
{
    if (memchr(inside, 0, (size_t)m) != NULL)
        return NULL;
    const unsigned char *quote = memchr(inside, '"', (size_t)m);
    if (quote == NULL)
        return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, inside, m);
    unsigned char small[256];
    unsigned char *out = m <= (Py_ssize_t)sizeof(small) ? small : PyMem_Malloc((size_t)m);
    if (out == NULL)
        return PyErr_NoMemory();
    Py_ssize_t k = 0;
    PyObject *value = NULL;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (inside[i] == '\\' && i + 1 < m && inside[i + 1] == '"') {
            out[k++] = '"';
            i++;
        }
        else if (inside[i] == '"') {
            goto done;  /* a quote not written \" */
        }
        else {
            out[k++] = inside[i];
        }
    }
    value = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, out, k);
done:
    if (out != small)
        PyMem_Free(out);
    return value;
}

static Py_ssize_t
digits(const unsigned char *v, Py_ssize_t i, Py_ssize_t n)
{
    Py_ssize_t start = i;
    while (i < n && v[i] >= '0' && v[i] <= '9')
        i++;
    return i - start;
}

/* The Literal's value of a value text oldform._plain_literal reads the same way, a
 * new reference: a string (plain_string), a decimal integer of at most 18 digits
 * without a leading zero, optionally negative (int), or -?[0-9]+.[0-9]+([eE][+-]?
 * [0-9]+)? (float, as Python's float() reads it, at most 63 characters); NULL without
 * an exception for any other text. */
static PyObject *
plain_value(const unsigned char *v, Py_ssize_t n)
{
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
        return plain_string(v + 1, n - 2);
    Py_ssize_t i = (n > 0 && v[0] == '-') ? 1 : 0;
    Py_ssize_t whole = digits(v, i, n);
    if (whole == 0)
        return NULL;
    if (i + whole == n) {
        if (whole > 18 || (v[i] == '0' && whole > 1))
            return NULL;
        long long value = 0;
        for (Py_ssize_t j = i; j < n; j++)
            value = value * 10 + (v[j] - '0');
        return PyLong_FromLongLong(i ? -value : value);
    }
    Py_ssize_t j = i + whole;
    if (v[j] != '.')
        return NULL;
    Py_ssize_t fraction = digits(v, j + 1, n);
    if (fraction == 0)
        return NULL;
    j += 1 + fraction;
    if (j < n) {
        if (v[j] != 'e' && v[j] != 'E')
            return NULL;
        j++;
        if (j < n && (v[j] == '+' || v[j] == '-'))
            j++;
        Py_ssize_t exponent = digits(v, j, n);
        if (exponent == 0 || j + exponent != n)
            return NULL;
    }
    char text[64];
    if (n >= (Py_ssize_t)sizeof(text))
        return NULL;
    memcpy(text, v, (size_t)n);
    text[n] = '\0';
    double value = PyOS_string_to_double(text, NULL, NULL);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();  /* not expected after the check above: the slow way decides */
        return NULL;
    }
    return PyFloat_FromDouble(value);
}

/* A new Literal of the value text v (plain_value), a new reference; NULL without an
 * exception when the text is not plain, NULL with one on failure. */
static PyObject *
plain_literal(Scanner *s, const unsigned char *v, Py_ssize_t n)
{
    PyObject *value = plain_value(v, n);
    if (value == NULL)
        return NULL;
    PyObject *literal = s->literal_type->tp_alloc(s->literal_type, 0);
    if (literal != NULL
            && Py_TYPE(s->value_descr)->tp_descr_set(s->value_descr, literal, value) < 0)
        Py_CLEAR(literal);
    Py_DECREF(value);
    return literal;
}

/* The pair of a one-byte-per-character line read here, a new reference; NULL without
 * an exception when the line is not of the plain form; NULL with one on failure. */
static PyObject *
plain_pair(Scanner *s, const unsigned char *p, Py_ssize_t n)
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
    while (end > v && is_blank(end[-1]))
        end--;
    /* one Literal for a value text however many names hold it (a job's GlobalJobId
     * and SubmitterGlobalJobId; a slot's Disk and TotalDisk), as OLD_VALUES shares */
    uint64_t h = hash_bytes((const char *)v, end - v, s->key);
    PyObject *literal = gen_get(&s->values, h, (const char *)v, end - v,
                                PyUnicode_1BYTE_KIND);
    if (literal == NULL) {
        if (PyErr_Occurred())
            return NULL;
        literal = plain_literal(s, v, end - v);
        if (literal == NULL)
            return NULL;  /* not plain (no exception), or an error (propagated) */
        if (gen_put(&s->values, h, (const char *)v, end - v, PyUnicode_1BYTE_KIND,
                    literal) < 0) {
            Py_DECREF(literal);
            return NULL;
        }
    }
    PyObject *head = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, p, eq - p);
    PyObject *named = NULL, *entry = NULL, *pair = NULL;
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

/* One line [pos, stop) of text; 0 on success, -1 with an exception. */
static int
feed_line(Scanner *s, PyObject *text, const void *data, int kind, Py_ssize_t pos,
          Py_ssize_t stop, PyObject *done)
{
    s->lineno++;
    if (stop - pos == 1 && PyUnicode_READ(kind, data, pos) == '\n')
        return end_ad(s, done);
    const char *key = (const char *)data + pos * kind;
    Py_ssize_t size = (stop - pos) * kind;
    uint64_t h = hash_bytes(key, size, s->key);
    PyObject *pair = gen_get(&s->lines, h, key, size, kind);
    if (pair != NULL) {
        int r = pending_add(s, pair);
        Py_DECREF(pair);
        return r;
    }
    if (PyErr_Occurred())
        return -1;
    if (kind == PyUnicode_1BYTE_KIND) {
        pair = plain_pair(s, (const unsigned char *)key, size);
        if (pair == NULL && PyErr_Occurred())
            return -1;
    }
    if (pair == NULL) {
        PyObject *line = PyUnicode_Substring(text, pos, stop);
        if (line == NULL)
            return -1;
        PyObject *lineno = PyLong_FromSsize_t(s->lineno);
        if (lineno == NULL) {
            Py_DECREF(line);
            return -1;
        }
        pair = PyObject_CallFunctionObjArgs(s->miss, line, lineno, NULL);
        Py_DECREF(line);
        Py_DECREF(lineno);
        if (pair == NULL)
            return -1;
        if (pair == Py_None) {
            Py_DECREF(pair);
            return 0;
        }
        if (pair == s->end) {
            Py_DECREF(pair);
            return end_ad(s, done);
        }
    }
    int r = gen_put(&s->lines, h, key, size, kind, pair);
    if (r == 0)
        r = pending_add(s, pair);
    Py_DECREF(pair);
    return r;
}

static PyObject *
Scanner_feed(Scanner *s, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "feed(text: str, done: list)");
        return NULL;
    }
    PyObject *text = args[0];
    PyObject *done = args[1];
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)  /* a no-op, deprecated, from 3.12 on */
        return NULL;
#endif
    const void *data = PyUnicode_DATA(text);
    int kind = PyUnicode_KIND(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t pos = 0;
    while (pos < n) {
        Py_ssize_t stop = next_line_end(data, kind, pos, n);
        if (feed_line(s, text, data, kind, pos, stop, done) < 0)
            return NULL;
        pos = stop;
    }
    Py_RETURN_NONE;
}

static PyObject *
Scanner_finish(Scanner *s, PyObject *done)
{
    if (!PyList_Check(done)) {
        PyErr_SetString(PyExc_TypeError, "finish(done: list)");
        return NULL;
    }
    if (s->npending == 0)
        Py_RETURN_NONE;
    /* the last ad ends at the end of the input: old_ad, as oldform does */
    PyObject *pairs = PyList_New(s->npending);
    if (pairs == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < s->npending; i++) {
        Py_INCREF(s->pending[i]);
        PyList_SET_ITEM(pairs, i, s->pending[i]);
    }
    pending_clear(s);
    PyObject *ad = PyObject_CallOneArg(s->old_ad, pairs);
    Py_DECREF(pairs);
    if (ad == NULL)
        return NULL;
    int r = PyList_Append(done, ad);
    Py_DECREF(ad);
    if (r < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* -- the type ---------------------------------------------------------------------- */

static int
Scanner_init(Scanner *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"literal_type", "value_descr", "names", "new_name", "miss",
                             "from_attrs", "old_ad", "end", "limit", "key", NULL};
    PyObject *literal_type, *value_descr, *names, *new_name, *miss, *from_attrs, *old_ad,
        *end;
    Py_ssize_t limit;
    unsigned long long key;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OO!OOOOOnK", kwlist, &PyType_Type,
                                     &literal_type, &value_descr, &PyDict_Type, &names,
                                     &new_name, &miss, &from_attrs, &old_ad, &end, &limit,
                                     &key))
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
    Py_INCREF(literal_type);
    s->literal_type = (PyTypeObject *)literal_type;
    Py_INCREF(value_descr);
    s->value_descr = value_descr;
    Py_INCREF(names);
    s->names = names;
    Py_INCREF(new_name);
    s->new_name = new_name;
    Py_INCREF(miss);
    s->miss = miss;
    Py_INCREF(from_attrs);
    s->from_attrs = from_attrs;
    Py_INCREF(old_ad);
    s->old_ad = old_ad;
    Py_INCREF(end);
    s->end = end;
    s->lines.limit = (size_t)limit;
    s->values.limit = (size_t)limit;
    s->key = (uint64_t)key;
    return 0;
}

static void
Scanner_dealloc(Scanner *s)
{
    gen_clear(&s->lines);
    gen_clear(&s->values);
    pending_clear(s);
    PyMem_Free(s->pending);
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
     "input's last piece), appending finished ads to done."},
    {"finish", (PyCFunction)Scanner_finish, METH_O,
     "finish(done): append the ad the input's last lines left open, if any."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Scanner_getset[] = {
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

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "condorlite.core.classad._oldscan",
    .m_doc = "Old-form ad reading, the per-line part (see oldscan.py).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__oldscan(void)
{
    if (PyType_Ready(&ScannerType) < 0)
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
    return m;
}
