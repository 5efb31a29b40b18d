/* An ad's dict from its lines (scanner.h). */

#include "scanner.h"
#include "table.h"

/* The current ad is done: its lines become the previous ad's. */
static void
rotate(Scanner *s)
{
    adlines_clear(&s->previous);
    AdLines done = s->previous;
    s->previous = s->pending;
    s->pending = done;
}

/* attrs[name] = entry for a (name, entry) pair; 0, or -1 with an exception. */
static inline int
set_pair(PyObject *attrs, PyObject *pair)
{
    return PyDict_SetItem(attrs, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1));
}

/* Whether the current ad holds the previous ad's names in the same order (the same
 * key objects): a cluster's jobs, a machine type's slots. When it does, *fits says
 * whether every line it changes from the previous ad's is at a position of the
 * current run's mark (s->varying; read only once the run has two ads, see
 * run_takes): checked in the same pass, on the changed lines only. */
static int
same_names(Scanner *s, int *fits)
{
    if (s->previous.n != s->pending.n)
        return 0;
    int flagged = s->layout != NULL && s->run_ads >= 2 && s->varying_size >= s->pending.n;
    *fits = flagged;
    for (Py_ssize_t i = 0; i < s->pending.n; i++) {
        PyObject *pair = s->pending.pairs[i];
        PyObject *before = s->previous.pairs[i];
        if (pair == before)
            continue;
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2
                || PyTuple_GET_ITEM(pair, 0) != PyTuple_GET_ITEM(before, 0))
            return 0;
        if (flagged && !s->varying[i])
            *fits = 0;
    }
    return 1;
}

/* Whether the current ad, holding the previous ad's names in the same order, stays in
 * the previous ad's run: 1 or 0, or -1 with an exception (`fits`: same_names'). The
 * mark (a set) holds the names whose lines differ between the run's first two ads; a
 * later ad stays when the lines it changes from the ad before are all at those names.
 * Hence every ad of a run holds, at every name not in the mark, the very pair of the
 * run's first ad (the grouping reads a run's first ad for such names:
 * matching/significant.py), and a cluster's jobs, which differ in ProcId, GlobalJobId,
 * Args and the like, are one run however many there are. */
static int
run_takes(Scanner *s, int fits)
{
    if (s->run_ads != 1)
        return fits;
    /* the run's second ad: the names it changes make the mark, and, by position, the
     * flags the later ads are checked against (no set lookup per ad) */
    Py_ssize_t n = s->pending.n;
    if (n > s->varying_size) {
        char *grown = PyMem_Realloc(s->varying, n);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->varying = grown;
        s->varying_size = n;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = s->pending.pairs[i];
        s->varying[i] = pair != s->previous.pairs[i];
        if (s->varying[i] && PySet_Add(s->layout, PyTuple_GET_ITEM(pair, 0)) < 0)
            return -1;
    }
    return 1;
}

/* The current ad's dict as a copy of the previous ad's with the values that differ
 * set: the copy takes its table whole (str-keyed, the size the pairs would have grown
 * it to), where inserting the pairs one by one grows it step by step. When the
 * previous ad's table is lazy the template is its run's base, which differs from it
 * at the mark's positions too: those are set as well (setting a name the dict holds
 * keeps its place, so the dict is the one the copy of the previous ad's would be). */
static PyObject *
attrs_from_template(Scanner *s)
{
    PyObject *attrs = PyDict_Copy(s->template);
    if (attrs == NULL)
        return NULL;
    const char *marked = s->lazy_previous ? s->varying : NULL;
    for (Py_ssize_t i = 0; i < s->pending.n; i++) {
        PyObject *pair = s->pending.pairs[i];
        if (pair == s->previous.pairs[i] && (marked == NULL || !marked[i]))
            continue;
        if (set_pair(attrs, pair) < 0) {
            Py_DECREF(attrs);
            return NULL;
        }
    }
    return attrs;
}

/* The template kept as the scanner's own (its table is the previous ad's, or a
 * private copy), and whether the previous ad's table is lazy (scanner.h). */
static void
set_template(Scanner *s, PyObject *attrs, int private, int lazy)
{
    Py_XINCREF(attrs);
    Py_XSETREF(s->template, attrs);
    s->template_private = private;
    s->lazy_previous = lazy;
}

/* The lazy table of the current ad, a run's third or later ad whose lines differ from
 * the previous ad's at the mark's positions only (same_names' `fits`): the tuple
 * (base, pair, ...), `base` a private copy of the template (made at the run's first
 * lazy ad and kept as the template: no ad holds it, so no caller's change reaches
 * it) and the pairs the ad's lines at the mark's positions. Every other position
 * holds the very pair of the run's first ad, and so of the base: the base with those
 * pairs set is the dict attrs_from_template would build (table.c makes it so on the
 * first read of the ad's _attrs). A new reference, or NULL with an exception. */
static PyObject *
lazy_table(Scanner *s)
{
    if (!s->template_private) {
        PyObject *base = PyDict_Copy(s->template);
        if (base == NULL)
            return NULL;
        set_template(s, base, 1, s->lazy_previous);
        Py_DECREF(base);
    }
    Py_ssize_t n = s->pending.n, k = 1;
    for (Py_ssize_t i = 0; i < n; i++)
        k += s->varying[i] != 0;
    PyObject *lazy = PyTuple_New(k);
    if (lazy == NULL)
        return NULL;
    Py_INCREF(s->template);
    PyTuple_SET_ITEM(lazy, 0, s->template);
    k = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s->varying[i]) {
            Py_INCREF(s->pending.pairs[i]);
            PyTuple_SET_ITEM(lazy, k++, s->pending.pairs[i]);
        }
    }
    return lazy;
}

/* The current ad with a lazy table (lazy_table), or NULL with an exception; it stays
 * in the run. It is made as the lazy type (table.c: ad.py's LazyClassAd, whose first
 * read of `_attrs` makes it a whole ClassAd), not by from_attrs, which makes the
 * whole ads. */
static PyObject *
lazy_ad(Scanner *s)
{
    PyObject *lazy = lazy_table(s);
    if (lazy == NULL)
        return NULL;
    PyObject *ad = table_lazy_ad(lazy, s->layout);
    Py_DECREF(lazy);
    if (ad != NULL) {
        s->run_ads++;
        s->lazy_previous = 1;
    }
    return ad;
}

/* Release a shape's references (its array is kept for the next). */
static void
shape_clear(Shape *shape)
{
    for (Py_ssize_t i = 0; i < shape->n; i++)
        Py_DECREF(shape->pairs[i]);
    shape->n = 0;
    Py_CLEAR(shape->attrs);
}

void
scanner_forget_dicts(Scanner *s)
{
    set_template(s, NULL, 0, 0);
    for (int k = 0; k < SCANNER_SHAPES; k++)
        shape_clear(&s->shapes[k]);
    s->shape_next = 0;
}

void
scanner_free_shapes(Scanner *s)
{
    scanner_forget_dicts(s);
    for (int k = 0; k < SCANNER_SHAPES; k++) {
        PyMem_Free(s->shapes[k].pairs);
        s->shapes[k].pairs = NULL;
        s->shapes[k].cap = 0;
    }
}

/* The index of a shape whose ad has the current ad's names, the same objects in the
 * same order, none repeated; else -1. Pairs are compared first: an equal pair has an
 * equal name. */
static int
find_shape(Scanner *s)
{
    Py_ssize_t n = s->pending.n;
    PyObject **mine = s->pending.pairs;
    for (int k = 0; k < SCANNER_SHAPES; k++) {
        const Shape *shape = &s->shapes[k];
        if (shape->attrs == NULL || shape->n != n)
            continue;
        Py_ssize_t i = 0;
        for (; i < n; i++) {
            PyObject *pair = mine[i], *theirs = shape->pairs[i];
            if (pair != theirs && (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2
                                   || PyTuple_GET_ITEM(pair, 0) != PyTuple_GET_ITEM(theirs, 0)))
                break;
        }
        if (i == n)
            return k;
    }
    return -1;
}

/* The current ad's dict as a copy of the shape's (find_shape's: the same names in
 * the same order) with the entries that differ set: the dict attrs_from_pairs builds
 * (same keys, order, values, and table size: the shape's was built from the same
 * names), made in one piece where inserting 160 pairs one by one grows the table
 * five times. As with the template, the shape's dict is unchanged since it was built
 * (it has not left this feed()). */
static PyObject *
attrs_from_shape(Scanner *s, const Shape *shape)
{
    PyObject *attrs = PyDict_Copy(shape->attrs);
    if (attrs == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < shape->n; i++) {
        PyObject *pair = s->pending.pairs[i];
        if (pair != shape->pairs[i] && set_pair(attrs, pair) < 0) {
            Py_DECREF(attrs);
            return NULL;
        }
    }
    return attrs;
}

/* Keep attrs, the current ad's dict (no name repeated), and its pairs as a shape: in
 * place of the one it was copied from (`at`), else of the oldest kept. 0, or -1 with
 * an exception. */
static int
keep_shape(Scanner *s, PyObject *attrs, int at)
{
    if (at < 0) {
        at = s->shape_next;
        s->shape_next = (s->shape_next + 1) % SCANNER_SHAPES;
    }
    Shape *shape = &s->shapes[at];
    shape_clear(shape);
    Py_ssize_t n = s->pending.n;
    if (n > shape->cap) {
        PyObject **grown = PyMem_Realloc(shape->pairs, (size_t)n * sizeof(PyObject *));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        shape->pairs = grown;
        shape->cap = n;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(s->pending.pairs[i]);
        shape->pairs[i] = s->pending.pairs[i];
    }
    shape->n = n;
    Py_INCREF(attrs);
    shape->attrs = attrs;
    return 0;
}

/* The current ad's dict built from its pairs in order; a name that repeats keeps its
 * first position and takes the last value (the caller sees fewer keys than pairs). */
static PyObject *
attrs_from_pairs(Scanner *s)
{
    /* Not _PyDict_NewPresized: 4 % fewer instructions, but its tables take keys of any
     * type (24-byte entries, not the 16 of a str-keyed table grown from empty): 300 MB
     * more for 100,000 job ads. */
    PyObject *attrs = PyDict_New();
    if (attrs == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < s->pending.n; i++) {
        PyObject *pair = s->pending.pairs[i];
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "a line's pair must be a 2-tuple");
            Py_DECREF(attrs);
            return NULL;
        }
        if (set_pair(attrs, pair) < 0) {
            Py_DECREF(attrs);
            return NULL;
        }
    }
    return attrs;
}

/* The current ad, or NULL with an exception; its lines become the previous ad's
 * either way. */
static PyObject *
build_ad(Scanner *s)
{
    /* the previous ad's dict is at hand within one feed() (see scanner.h) */
    int fits = 0;
    int same = same_names(s, &fits);
    int shape = -1, attrs_copied = 0;
    PyObject *attrs;
    if (same && fits && s->template != NULL) {
        /* (a run's third ad or later, staying in it: run_takes would say so) */
        PyObject *ad = lazy_ad(s);
        if (ad == NULL)
            scanner_forget_dicts(s);
        rotate(s);
        return ad;
    }
    if (same && s->template != NULL) {
        attrs = attrs_from_template(s);
        attrs_copied = 1;
    }
    else if ((shape = find_shape(s)) >= 0)
        attrs = attrs_from_shape(s, &s->shapes[shape]);
    else
        attrs = attrs_from_pairs(s);
    PyObject *ad = NULL;
    if (attrs == NULL)
        goto done;
    if (PyDict_GET_SIZE(attrs) == s->pending.n) {
        int stays = same && s->layout != NULL ? run_takes(s, fits) : 0;
        if (stays < 0)
            goto done;
        if (!stays) {
            /* a run starts: its mark (ClassAd.layout), no name differing yet */
            PyObject *mark = PySet_New(NULL);
            if (mark == NULL)
                goto done;
            Py_XSETREF(s->layout, mark);
            s->run_ads = 0;
        }
        s->run_ads++;
        PyObject *args[2] = {attrs, s->layout};
        ad = PyObject_Vectorcall(s->from_attrs, args, 2, NULL);
        if (ad != NULL) {
            set_template(s, attrs, 0, 0);
            /* an ad not copied from the previous one's starts a shape (the ads of a
             * run of the previous ad's names are found from the template) */
            if (!attrs_copied && keep_shape(s, attrs, shape) < 0)
                Py_CLEAR(ad);
        }
    }
    else {
        set_template(s, NULL, 0, 0);
        PyObject *pairs = PyList_New(s->pending.n);
        if (pairs == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < s->pending.n; i++) {
            Py_INCREF(s->pending.pairs[i]);
            PyList_SET_ITEM(pairs, i, s->pending.pairs[i]);
        }
        ad = PyObject_CallOneArg(s->old_ad, pairs);
        Py_DECREF(pairs);
    }
done:
    if (ad == NULL)
        scanner_forget_dicts(s);
    Py_XDECREF(attrs);
    rotate(s);
    return ad;
}

int
scanner_end_ad(Scanner *s, PyObject *done, int empty)
{
    if (s->pending.n == 0 && !empty)
        return 0;
    PyObject *ad = build_ad(s);
    if (ad == NULL)
        return -1;
    int r = PyList_Append(done, ad);
    Py_DECREF(ad);
    return r;
}
