"""The *run pass* of decoding ``negotiate``'s ads (``cli/negotiate_inputs.RUN_PASS``):
a kind's ads decoded with the identities checked once at its end, a slot ad of a
known key by ``KnownSlots``, and a reader run's jobs built in one loop from their
cluster (``run_jobs``; in one C call, ``_oldscan.run_jobs``, where the scanner is
built). It gives ``negotiate_inputs._decode_kind``'s list and problems, or hands the
kind back when two items share an identity.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from operator import attrgetter
from typing import Any, NamedTuple

from condorlite.cli.ad_convert import Converter
from condorlite.core.ad_decoder import EXACT, AdDecoder, Cluster, job_of_cluster, new_job
from condorlite.core.classad.ad import TABLE_SLOT, table_entry
from condorlite.core.classad.ad import ClassAd as _AdClass
from condorlite.core.classad.ad import LazyClassAd as _LazyAd
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.oldscan import run_jobs as _compiled_run_jobs  # None: not built
from condorlite.core.entry_keys import entry_key
from condorlite.core.known_slots import KnownSlots
from condorlite.core.model import Job
from condorlite.store.adfiles import LoadedAd


def decode_runs(kind: str, ads: list[LoadedAd], convert: Callable[[Any, int], Any],
                 problems: list[dict[str, Any]], decoder: AdDecoder | None = None,
                 known: KnownSlots | None = None) -> list[Any] | None:
    """``negotiate_inputs._decode_kind``'s list and problems (appended to
    ``problems``) when no two of the ads converted share an identity, else None with
    ``problems`` untouched: the *run pass*. Without duplicates nothing is skipped for
    its identity, so each item's place is the one ``_decode_kind`` gives it and the
    identities can be checked once at the end (one set) instead of ad by ad; with
    one, the caller decodes again with ``_decode_kind``. A job ad whose memo hit
    (``ad_convert.PlainJobs``) starts a reader run whose mark holds none of the memo's
    names takes the whole run's jobs in one call (``run_jobs``), as ``_decode_kind``
    takes the run's hit ad by ad (``negotiate_inputs._RUNS``). ``known`` (slots): a
    top-level ClassAd-lite ad it decodes takes no screen and no ``convert``; one it
    does not is converted and learnt."""
    out: list[Any] = []
    mine: list[dict[str, Any]] = []
    converted = Converter(kind, convert, mine, decoder)
    plain_jobs = converted.plain_jobs
    count = len(ads)
    at = 0
    while at < count:
        loaded = ads[at]
        ad = loaded.ad
        if known is not None and (type(ad) is _AdClass or type(ad) is _LazyAd) \
                and ad.parent is None:
            table = ad._attrs
            item = known.slot(ad, table, len(out))
            if item is None:
                item = converted(loaded, len(out))
                if item is None:
                    at += 1
                    continue
                known.learn(ad, table, converted.screener)
            out.append(item)
            at += 1
            continue
        names = plain_jobs.names
        if names is not None and (type(ad) is _AdClass or type(ad) is _LazyAd) \
                and ad.parent is None:
            table = ad._attrs
            hit = plain_jobs.memo.get(entry_key(table, names))
            if hit is not None:
                mark = ad.layout
                if type(mark) is set and mark.isdisjoint(names):
                    end = run_jobs(hit[1], ads, at, mark, out)
                    if end > at:
                        at = end
                        continue
                else:
                    item = job_of_cluster(hit[1], ad, table, len(out))
                    if item is not None:
                        out.append(item)
                        at += 1
                        continue
        item = converted(loaded, len(out))
        if item is not None:
            out.append(item)
        at += 1
    identity = attrgetter("name" if kind == "slot" else "id")
    if len(set(map(identity, out))) != len(out):
        return None
    problems.extend(mine)
    return out


class RunTypes(NamedTuple):
    """What the compiled ``run_jobs`` reads a reader run's objects by
    (``_oldscan/jobruns.c``, which takes these fields by position, in this order)."""

    loaded_ad: object  #: ``LoadedAd.ad``, a member descriptor
    ad_type: type  #: ClassAd (its lazy subclass is the one ``ad.py`` registered)
    ad_members: tuple  #: ClassAd's table, ``layout`` and ``parent`` members
    literal: type
    literal_value: object  #: ``Literal.value``, a member descriptor
    job: type
    job_members: tuple  #: Job's members in field order (``new_job``'s arguments)


_RUN_TYPES = RunTypes(
    LoadedAd.ad, _AdClass, tuple(_AdClass.__dict__[name] for name in (
        TABLE_SLOT, "layout", "parent")), Literal, Literal.__dict__["value"], Job,
    tuple(getattr(Job, name) for name in Job.__dataclass_fields__))

#: ``run_jobs``'s loop in one C call (``_oldscan.run_jobs``: the same Jobs, the same
#: place returned; 100,000 jobs went through the Python loop at ~1.2 us each), where
#: built and ``CONDORLITE_PURE_PYTHON`` is unset
RUN_JOBS = None if os.environ.get("CONDORLITE_PURE_PYTHON") else _compiled_run_jobs


def run_jobs(cluster: Cluster, ads: list[LoadedAd], start: int, mark: set,
              out: list[Job]) -> int:
    """The Jobs of ``ads[start:]`` appended to ``out`` while their ads are top-level
    ClassAd-lite ads of the reader run ``mark`` (a set holding none of the memo's
    names, ``ads[start]``'s memo hit being ``cluster``) with a literal integer ProcId
    below 2**53: ``job_of_cluster`` of each, the cluster unpacked once. Returns the
    place of the first ad not taken (``start`` when none is)."""
    if RUN_JOBS is not None:
        return RUN_JOBS(ads, start, mark, cluster, out, _RUN_TYPES)
    prefix, number, status, submitter, prio, qdate = cluster
    append = out.append
    index = len(out)
    # (by place: ``islice`` would step over the ``start`` ads before)
    for at in range(start, len(ads)):
        ad = ads[at].ad
        # (a run's ads are lazy from its third: ``ad.py``)
        if (type(ad) is not _LazyAd and type(ad) is not _AdClass) or ad.layout is not mark \
                or ad.parent is not None:
            break
        # (the entry alone: a job ad of a reader run keeps its table lazy, ``ad.py``)
        proc = table_entry(ad, "procid")
        if proc is None or type(proc := proc[1]) is not Literal:
            break
        proc = proc.value
        if type(proc) is not int or not -EXACT < proc < EXACT:
            break
        append(new_job(f"{prefix}{proc}", number, proc, index, ad, status, submitter,
                       prio, qdate))
        index += 1
    else:
        return len(ads)
    return at

