/* run_jobs(ads, start, mark, cluster, out, types) -> int: negotiate_inputs._run_jobs's
 * loop in C, the same Jobs appended to `out` and the same place returned.
 *
 * `ads` a list of LoadedAds, `mark` a reader run's mark (a set holding none of the
 * decoder memo's names), `cluster` the memo's Cluster of ads[start] (a 6-tuple: prefix,
 * cluster, status, submitter, prio, qdate), `types` a 7-tuple (negotiate_inputs.RunTypes:
 * LoadedAd.ad, ClassAd, ClassAd's (table, layout, parent) members, Literal,
 * Literal.value, Job, Job's members in field order). From ads[start] on, while the ad
 * is a top-level ClassAd (or a lazy one: table.c) of the run `mark` whose ProcId entry
 * (read from its table whole or lazy, not made whole) is a Literal of an int in
 * (-2**53, 2**53), the Job
 *
 *     Job(f"{prefix}{proc}", cluster, proc, len(out), ad, status, submitter, prio, qdate)
 *
 * is appended (built as slotted builds it); the place of the first ad not taken is
 * returned (len(ads) when all are). Anything the Python loop would stop at stops this
 * one; anything else it would not meet (a row that is not a LoadedAd, a table that is
 * neither a dict nor a lazy one, a prefix that is not a str) stops it too, and the
 * caller's general path decodes that ad. Why: 100,000 jobs of a realistic queue went
 * through the Python loop at ~1.2 us each (RESULTS.md, session 30). */

#include "jobruns.h"

#include <structmember.h>

#include "slotted.h"
#include "table.h"

/* (a ProcId is an exact integer of a double: Job ids compare with floats) */
#define EXACT ((long long)1 << 53)

static PyObject *
member_of(PyObject *descr, PyObject *obj)
{
    return Py_TYPE(descr)->tp_descr_get(descr, obj, (PyObject *)Py_TYPE(obj));
}

/* Whether every item of `members` is a member descriptor of a type `type` is (a
 * subtype of). */
static int
members_of(PyObject *members, PyTypeObject *type)
{
    if (!PyTuple_CheckExact(members))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(members); i++) {
        PyObject *member = PyTuple_GET_ITEM(members, i);
        if (!PyObject_TypeCheck(member, &PyMemberDescr_Type)
                || !PyType_IsSubtype(type, PyDescr_TYPE(member)))
            return 0;
    }
    return 1;
}

/* The Job of `ad` in the run, a new reference; NULL without an exception when the
 * ad is not taken (see the top), NULL with one on failure. */
static PyObject *
run_job(PyObject *ad, PyObject *mark, PyObject *cluster, Py_ssize_t index,
        PyObject *const *ad_members, PyTypeObject *literal_type, PyObject *value_member,
        PyTypeObject *job_type, PyObject *job_members, PyObject *procid)
{
    PyObject *layout = member_of(ad_members[1], ad);
    if (layout == NULL)
        return NULL;
    Py_DECREF(layout);  /* (compared by identity: the ad holds it) */
    if (layout != mark)
        return NULL;
    PyObject *parent = member_of(ad_members[2], ad);
    if (parent == NULL)
        return NULL;
    Py_DECREF(parent);
    if (parent != Py_None)
        return NULL;
    PyObject *table = member_of(ad_members[0], ad);
    if (table == NULL)
        return NULL;
    if (!PyDict_CheckExact(table) && !TABLE_IS_LAZY(table)) {
        Py_DECREF(table);
        return NULL;
    }
    PyObject *entry = table_lookup(table, procid);
    Py_XINCREF(entry);
    Py_DECREF(table);
    if (entry == NULL)
        return NULL;  /* (absent, or an error to propagate) */
    PyObject *literal = PyTuple_CheckExact(entry) && PyTuple_GET_SIZE(entry) == 2
                        ? PyTuple_GET_ITEM(entry, 1) : NULL;
    if (literal == NULL || Py_TYPE(literal) != literal_type) {
        Py_DECREF(entry);
        return NULL;
    }
    PyObject *proc = member_of(value_member, literal);
    Py_DECREF(entry);
    if (proc == NULL)
        return NULL;
    int overflow = 0;
    long long value = PyLong_CheckExact(proc) ? PyLong_AsLongLongAndOverflow(proc, &overflow)
                                              : EXACT;
    if (overflow || value <= -EXACT || value >= EXACT) {
        Py_DECREF(proc);
        return NULL;
    }
    PyObject *ident = PyUnicode_FromFormat("%U%lld", PyTuple_GET_ITEM(cluster, 0), value);
    PyObject *place = ident == NULL ? NULL : PyLong_FromSsize_t(index);
    PyObject *job = NULL;
    if (place != NULL) {
        PyObject *values[9] = {
            ident, PyTuple_GET_ITEM(cluster, 1), proc, place, ad,
            PyTuple_GET_ITEM(cluster, 2), PyTuple_GET_ITEM(cluster, 3),
            PyTuple_GET_ITEM(cluster, 4), PyTuple_GET_ITEM(cluster, 5)};
        job = slotted_new(job_type, job_members, values, 9);
    }
    Py_XDECREF(place);
    Py_XDECREF(ident);
    Py_DECREF(proc);
    return job;
}

PyObject *
oldscan_run_jobs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *types = nargs == 6 ? args[5] : NULL;
    if (types == NULL || !PyList_CheckExact(args[0]) || !PyLong_Check(args[1])
            || !PyTuple_Check(args[3]) || PyTuple_GET_SIZE(args[3]) != 6
            || !PyList_CheckExact(args[4])
            || !PyTuple_Check(types) || PyTuple_GET_SIZE(types) != 7) {
        PyErr_SetString(PyExc_TypeError, "run_jobs(ads: list, start: int, mark, "
                        "cluster: 6-tuple, out: list, types: 7-tuple)");
        return NULL;
    }
    PyObject *ads = args[0], *mark = args[2], *cluster = args[3], *out = args[4];
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred())
        return NULL;
    PyObject *loaded_ad = PyTuple_GET_ITEM(types, 0);
    PyObject *ad_type = PyTuple_GET_ITEM(types, 1);
    PyObject *ad_members = PyTuple_GET_ITEM(types, 2);
    PyObject *literal_type = PyTuple_GET_ITEM(types, 3);
    PyObject *value_member = PyTuple_GET_ITEM(types, 4);
    PyObject *job_type = PyTuple_GET_ITEM(types, 5);
    PyObject *job_members = PyTuple_GET_ITEM(types, 6);
    if (!PyObject_TypeCheck(loaded_ad, &PyMemberDescr_Type) || !PyType_Check(ad_type)
            || !members_of(ad_members, (PyTypeObject *)ad_type)
            || PyTuple_GET_SIZE(ad_members) != 3 || !PyType_Check(literal_type)
            || !PyObject_TypeCheck(value_member, &PyMemberDescr_Type)
            || !PyType_IsSubtype((PyTypeObject *)literal_type, PyDescr_TYPE(value_member))
            || !PyType_Check(job_type)
            || !members_of(job_members, (PyTypeObject *)job_type)
            || PyTuple_GET_SIZE(job_members) < 9) {
        PyErr_SetString(PyExc_TypeError, "run_jobs: types must be (LoadedAd.ad, ad type, "
                        "its (table, layout, parent) members, Literal, Literal.value, Job, "
                        "Job's members)");
        return NULL;
    }
    if (start < 0) {
        PyErr_SetString(PyExc_ValueError, "run_jobs: start must be a place in ads");
        return NULL;
    }
    if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(cluster, 0)))
        return PyLong_FromSsize_t(start);  /* (none taken: the general path) */
    PyObject *procid = PyUnicode_InternFromString("procid");
    if (procid == NULL)
        return NULL;
    PyObject *const *members = &PyTuple_GET_ITEM(ad_members, 0);
    Py_ssize_t at = start;
    for (; at < PyList_GET_SIZE(ads); at++) {
        PyObject *loaded = PyList_GET_ITEM(ads, at);
        if (Py_TYPE(loaded) != PyDescr_TYPE(loaded_ad))
            break;
        Py_INCREF(loaded);
        PyObject *ad = member_of(loaded_ad, loaded);
        Py_DECREF(loaded);
        if (ad == NULL)
            goto fail;
        PyObject *job = NULL;
        if (Py_TYPE(ad) == (PyTypeObject *)ad_type
                || table_lazy_of(Py_TYPE(ad), (PyTypeObject *)ad_type))
            job = run_job(ad, mark, cluster, PyList_GET_SIZE(out), members,
                          (PyTypeObject *)literal_type, value_member,
                          (PyTypeObject *)job_type, job_members, procid);
        Py_DECREF(ad);
        if (job == NULL) {
            if (PyErr_Occurred())
                goto fail;
            break;
        }
        int r = PyList_Append(out, job);
        Py_DECREF(job);
        if (r < 0)
            goto fail;
    }
    Py_DECREF(procid);
    return PyLong_FromSsize_t(at);
fail:
    Py_DECREF(procid);
    return NULL;
}
