"""Reading and decoding ``negotiate``'s slot and job ads (step 1 of ``negotiate``'s module
doc): ``load_ads`` reads the files once (standard input included), ``decode`` turns
them into slots and jobs under a policy, so ``--what-if`` decodes the same ads twice.

Decoding gives, for each kind, the items of the ads that pass in file order and a
problem for each that does not (the first ad with a given identity wins).
``_decode_kind`` is the ad-by-ad way; ``decode`` takes the run pass first
(``RUN_PASS``, ``_decode_runs``), which gives the same list and problems when no two
items share an identity and otherwise hands the kind back to ``_decode_kind``. In the
run pass a slot ad of a key ``KnownSlots`` holds (``KNOWN_SLOTS``) is decoded by it,
without the screen and the decoder: the same Slot, or None and the ad-by-ad way; a
reader run's jobs are built by ``_run_jobs``, in one C call where the scanner is built
(``_oldscan.run_jobs``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, NamedTuple

from condorlite.cli._state import ad_paths
from condorlite.cli.render import stderr_console
from condorlite.core import adeval
from condorlite.core.ad_decoder import (
    CLUSTER_NAMES,
    EXACT,
    AdDecoder,
    Cluster,
    job_of_cluster,
    new_job,
)
from condorlite.core.ad_screen import AdScreen
from condorlite.core.classad.ad import TABLE_SLOT, table_entry
from condorlite.core.classad.ad import ClassAd as _AdClass
from condorlite.core.classad.ad import LazyClassAd as _LazyAd
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.oldscan import run_jobs as _compiled_run_jobs  # None: not built
from condorlite.core.classad.scope import MAX_STEPS
from condorlite.core.entry_keys import entry_key
from condorlite.core.known_slots import KnownSlots
from condorlite.core.model import AdProblem, Job, Slot
from condorlite.core.policy import Policy
from condorlite.errors import UsageError
from condorlite.store.adfiles import (
    LoadedAd,
    read_ads,
    skipped_files,
)
from condorlite.store.db import StateStore

# -- reading and decoding the ads ------------------------------------------------------


@dataclass
class Inputs:
    """The decoded ads of one run and what was skipped."""

    slots: list[Slot] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)


def _problem(kind: str, loaded: LoadedAd, message: str) -> dict[str, Any]:
    # "ad" counts from 1 within its file, as a person would point at it.
    return {"kind": kind, "source": loaded.source, "ad": loaded.index + 1, "problem": message}


class _PlainJobs:
    """Job ads known to pass every check and to decode from their cluster's memo, by
    the entries of the names of one plain screening's path (``Screening.keyed``) and
    of ``CLUSTER_NAMES``: an ad holding the same entries for all of them reaches the
    same plain leaf of the screen and the same cluster of the decoder, so its Job is
    the cluster's with its own ProcId (``job_of_cluster``), with one key per ad
    where the screen and the decoder take three. One memo per set of names; the one
    in use is the last learnt's (a queue's jobs come in runs of one kind). Each value
    holds its entries (``entry_key``); a memo is cleared at ``MAX`` keys, and all go
    with the reading pass."""

    __slots__ = ("_memos", "memo", "names")

    MAX = 4096

    def __init__(self) -> None:
        self._memos: dict[tuple[str, ...], dict[Hashable, tuple[tuple, Cluster]]] = {}
        self.names: tuple[str, ...] | None = None
        self.memo: dict[Hashable, tuple[tuple, Cluster]] = {}

    def learn(self, table: dict, keyed: frozenset[str], cluster: Cluster) -> None:
        """Remember the ad of ``table``, screened plain on a path keying ``keyed``,
        as being of ``cluster``; its names become the ones in use."""
        names = tuple(sorted(keyed.union(CLUSTER_NAMES)))
        memo = self._memos.get(names)
        if memo is None:
            memo = self._memos[names] = {}
        if len(memo) >= self.MAX:
            memo.clear()
        memo[entry_key(table, names)] = (tuple(map(table.get, names)), cluster)
        self.names, self.memo = names, memo


#: Whether ``_decode_kind`` takes a job ad's memo hit from the ad before it when both
#: are of one reader run (``ClassAd.layout``, the same set) whose mark holds none of
#: the memo's names: the run's ads bind every name outside their mark to the very same
#: entry objects (``ClassAd._from_attrs``' invariant), so their ``entry_key`` is the
#: same and so is the hit (a cluster's jobs: one key per cluster, not per job). A
#: module flag so that the tests run both ways.
_RUNS = True

#: Whether ``decode`` takes the *run pass* (``_decode_runs``) before ``_decode_kind``:
#: a reader run's jobs built in one loop from their cluster (``_run_jobs``) and the
#: identities checked once for the whole kind, not ad by ad. A module flag so that
#: the tests run both ways.
RUN_PASS = True

#: Whether the run pass decodes a slot ad of a known key by its ``KnownSlots`` (one
#: key for the screen's and the facts' names, then what is the slot's own) before
#: the screen and ``AdDecoder.slot``. A module flag so that the tests run both ways.
KNOWN_SLOTS = True


class _Converter:
    """What the reading pass of one kind asks of an ad that no memo answers: the
    checks of ``ad_screen`` and the conversion, in ``_decode_kind``'s order, the
    problems appended to ``problems``; a job ad screened plain whose cluster the
    decoder keeps is learnt by ``plain_jobs``."""

    __slots__ = ("convert", "decoder", "kind", "plain_jobs", "problems", "screen",
                 "screener")

    def __init__(self, kind: str, convert: Callable[[Any, int], Any],
                 problems: list[dict[str, Any]], decoder: AdDecoder | None) -> None:
        self.kind = kind
        self.convert = convert
        self.problems = problems
        self.decoder = decoder
        self.screener = AdScreen(kind)
        self.screen = self.screener.screen
        self.plain_jobs = _PlainJobs()

    def __call__(self, loaded: LoadedAd, index: int) -> Any:
        """The item of ``loaded`` (``index``: its place), or None when it is a
        problem (appended)."""
        kind, ad, problems = self.kind, loaded.ad, self.problems
        screening = self.screen(ad)
        # A plain screening passes every check (``Screening.plain``): only the
        # conversion and the identity are left to look at.
        plain = screening.plain
        if not plain and (foreign := screening.foreign) is not None:
            problems.append(_problem(kind, loaded, f'a {foreign} ad (MyType '
                                     f'"{foreign}"), not a {kind} ad'))
            return None
        try:
            item = self.convert(ad, index)
        except AdProblem as exc:
            problems.append(_problem(kind, loaded, str(exc)))
            return None
        if not plain:
            if (absurd := screening.absurd) is not None:
                problems.append(_problem(kind, loaded, f"{absurd} is not a finite "
                                         f"number up to {adeval.MAX_REQUEST:g}; "
                                         f"skipped"))
                return None
            if (runaway := screening.runaway(ad)) is not None:
                problems.append(_problem(kind, loaded, f"{runaway} needs more than "
                                         f"{MAX_STEPS:,} attribute evaluations "
                                         f"(attributes that multiply each other's "
                                         f"cost); skipped"))
                return None
        elif (decoder := self.decoder) is not None \
                and (type(ad) is _AdClass or type(ad) is _LazyAd) and ad.parent is None:
            cluster = decoder.cluster(ad._attrs)
            if cluster is not None:
                self.plain_jobs.learn(ad._attrs, screening.keyed, cluster)
        return item


def _decode_kind(
    kind: str,
    ads: list[LoadedAd],
    convert: Callable[[Any, int], Any],
    what: str,
    problems: list[dict[str, Any]],
    decoder: AdDecoder | None = None,
) -> list[Any]:
    """The ads of one kind converted in order; foreign, bad and duplicate ads become
    problems (the first ad with a given identity wins), and so does an ad whose
    Requirements, Rank or START exceeds the evaluation budget on its own: HTCondor
    would evaluate it to an error every time. The checks are ``ad_screen``'s, in this
    order: foreign, then the conversion, then absurd requests (jobs), then runaway.
    ``decoder`` (jobs: the one ``convert`` belongs to) lets a job ad known to pass
    (``_PlainJobs``) skip the screen and the checks."""
    out: list[Any] = []
    seen: dict[str, LoadedAd] = {}  # identity -> the ad that first had it
    converted = _Converter(kind, convert, problems, decoder)
    by_name = kind == "slot"
    plain_jobs = converted.plain_jobs
    names, memo = plain_jobs.names, plain_jobs.memo
    # The memo's hit for the reader run of ``run_mark`` under ``run_names``: an ad of
    # that run binds every name its mark lacks to the run's entries (``_RUNS``).
    run_mark: set | None = None
    run_names: tuple[str, ...] | None = None
    run_hit: tuple[tuple, Cluster] | None = None
    for loaded in ads:
        ad = loaded.ad
        item = None
        if names is not None and (type(ad) is _AdClass or type(ad) is _LazyAd) \
                and ad.parent is None:
            table = ad._attrs
            mark = ad.layout
            if mark is run_mark and names is run_names and _RUNS:
                hit = run_hit
            else:
                hit = memo.get(entry_key(table, names))
                if hit is not None and type(mark) is set and mark.isdisjoint(names):
                    run_mark, run_names, run_hit = mark, names, hit
            if hit is not None:
                item = job_of_cluster(hit[1], ad, table, len(out))
        if item is None:
            item = converted(loaded, len(out))
            if item is None:
                continue
            names, memo = plain_jobs.names, plain_jobs.memo
        key = item.name if by_name else item.id
        first = seen.setdefault(key, loaded)
        if first is not loaded:
            problems.append(_problem(kind, loaded, f"duplicate {what} {key} (first in "
                                     f"{first.source} ad {first.index + 1}); skipped"))
            continue
        out.append(item)
    return out


def _decode_runs(kind: str, ads: list[LoadedAd], convert: Callable[[Any, int], Any],
                 problems: list[dict[str, Any]], decoder: AdDecoder | None = None,
                 known: KnownSlots | None = None) -> list[Any] | None:
    """``_decode_kind``'s list and problems (appended to ``problems``) when no two of
    the ads converted share an identity, else None with ``problems`` untouched: the
    *run pass*. Without duplicates nothing is skipped for its identity, so each
    item's place is the one ``_decode_kind`` gives it and the identities can be
    checked once at the end (one set) instead of ad by ad; with one, the caller
    decodes again with ``_decode_kind``. A job ad whose memo hit (``_PlainJobs``)
    starts a reader run whose mark holds none of the memo's names takes the whole
    run's jobs in one call (``_run_jobs``), as ``_decode_kind`` takes the run's hit
    ad by ad (``_RUNS``). ``known`` (slots): a top-level ClassAd-lite ad it decodes
    takes no screen and no ``convert``; one it does not is converted and learnt."""
    out: list[Any] = []
    mine: list[dict[str, Any]] = []
    converted = _Converter(kind, convert, mine, decoder)
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
                    end = _run_jobs(hit[1], ads, at, mark, out)
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
    """What the compiled ``_run_jobs`` reads a reader run's objects by
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

#: ``_run_jobs``'s loop in one C call (``_oldscan.run_jobs``: the same Jobs, the same
#: place returned; 100,000 jobs went through the Python loop at ~1.2 us each), where
#: built and ``CONDORLITE_PURE_PYTHON`` is unset
_RUN_JOBS = None if os.environ.get("CONDORLITE_PURE_PYTHON") else _compiled_run_jobs


def _run_jobs(cluster: Cluster, ads: list[LoadedAd], start: int, mark: set,
              out: list[Job]) -> int:
    """The Jobs of ``ads[start:]`` appended to ``out`` while their ads are top-level
    ClassAd-lite ads of the reader run ``mark`` (a set holding none of the memo's
    names, ``ads[start]``'s memo hit being ``cluster``) with a literal integer ProcId
    below 2**53: ``job_of_cluster`` of each, the cluster unpacked once. Returns the
    place of the first ad not taken (``start`` when none is)."""
    if _RUN_JOBS is not None:
        return _RUN_JOBS(ads, start, mark, cluster, out, _RUN_TYPES)
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


def decode(slot_ads: list[LoadedAd], job_ads: list[LoadedAd], policy: Policy) -> Inputs:
    """Slots and jobs from their ads; bad or duplicate ads become problems.

    The first ad with a given slot Name or job id wins; later ones are skipped. An ad
    whose MyType names the other kind (a job among the slots, a Machine among the jobs)
    is skipped too, so one ``condor_status``/``condor_q`` mix can be given to both.
    """
    out = Inputs()
    decoder = AdDecoder(policy)  # one per pass: its memo goes with it
    out.slots = _decoded("slot", slot_ads, decoder.slot, "slot Name", out.problems,
                         known=KnownSlots(policy) if KNOWN_SLOTS else None)
    out.jobs = _decoded("job", job_ads, decoder.job, "job", out.problems, decoder)
    return out


def _decoded(kind: str, ads: list[LoadedAd], convert: Callable[[Any, int], Any], what: str,
             problems: list[dict[str, Any]], decoder: AdDecoder | None = None,
             known: KnownSlots | None = None) -> list[Any]:
    """``_decode_kind``, by the run pass (``_decode_runs``, with ``known``) first when
    ``RUN_PASS``."""
    if RUN_PASS:
        out = _decode_runs(kind, ads, convert, problems, decoder, known)
        if out is not None:
            return out
    return _decode_kind(kind, ads, convert, what, problems, decoder)


@dataclass(frozen=True)
class LoadedAds:
    """The slot and job ads of one run as read, before decoding."""

    slots: list[LoadedAd]
    jobs: list[LoadedAd]


def load_ads(slots: list[str] | None, jobs: list[str] | None, store: StateStore) -> LoadedAds:
    """Read the ads of ``--slots``/``--jobs`` (else the config's SLOTS/JOBS); '-' is
    standard input, for one of the two."""
    slot_paths = ad_paths(slots, store.policy.slots, store.config_path, "slot", "--slots")
    job_paths = ad_paths(jobs, store.policy.jobs, store.config_path, "job", "--jobs")
    if "-" in [str(p) for p in slot_paths] and "-" in [str(p) for p in job_paths]:
        raise UsageError("'-' (standard input) can be given for --slots or --jobs, not both")
    skipped = skipped_files([*slot_paths, *job_paths])
    if skipped:
        stderr_console().print(
            f"condorlite negotiate: skipped {len(skipped)} file(s) that are not ad files "
            f"(*.ad, *.ads, *.json): " + ", ".join(str(p) for p in skipped[:10])
            + (" ..." if len(skipped) > 10 else ""),
            markup=False,
        )
    return LoadedAds(read_ads(slot_paths, stdin=sys.stdin), read_ads(job_paths, stdin=sys.stdin))


def read_inputs(slots: list[str] | None, jobs: list[str] | None, store: StateStore) -> Inputs:
    """``load_ads`` decoded under the store's policy."""
    loaded = load_ads(slots, jobs, store)
    return decode(loaded.slots, loaded.jobs, store.policy)
