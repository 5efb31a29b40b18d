"""Reading and decoding ``negotiate``'s slot and job ads (step 1 of ``negotiate``'s module
doc): ``load_ads`` reads the files once (standard input included), ``decode`` turns
them into slots and jobs under a policy, so ``--what-if`` decodes the same ads twice.

Decoding gives, for each kind, the items of the ads that pass in file order and a
problem for each that does not (the first ad with a given identity wins).
``_decode_kind`` is the ad-by-ad way (each ad through ``ad_convert.Converter``, the
checks and the conversion, unless a memo answers it); ``decode`` takes the run pass
first (``RUN_PASS``, ``run_pass.decode_runs``), which gives the same list and problems
when no two items share an identity and otherwise hands the kind back to
``_decode_kind``. In the run pass a slot ad of a key ``KnownSlots`` holds
(``KNOWN_SLOTS``) is decoded by it, without the screen and the decoder: the same Slot,
or None and the ad-by-ad way; a reader run's jobs are built by ``run_pass.run_jobs``,
in one C call where the scanner is built (``_oldscan.run_jobs``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from condorlite.cli._state import ad_paths
from condorlite.cli.ad_convert import Converter, problem
from condorlite.cli.render import stderr_console
from condorlite.cli.run_pass import decode_runs
from condorlite.core.ad_decoder import AdDecoder, Cluster, job_of_cluster
from condorlite.core.classad.ad import ClassAd as _AdClass
from condorlite.core.classad.ad import LazyClassAd as _LazyAd
from condorlite.core.entry_keys import entry_key
from condorlite.core.known_slots import KnownSlots
from condorlite.core.model import Job, Slot
from condorlite.core.policy import Policy
from condorlite.errors import UsageError
from condorlite.store.adfiles import LoadedAd, read_ads, skipped_files
from condorlite.store.db import StateStore

# -- reading and decoding the ads ------------------------------------------------------


@dataclass
class Inputs:
    """The decoded ads of one run and what was skipped."""

    slots: list[Slot] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)


#: Whether ``_decode_kind`` takes a job ad's memo hit from the ad before it when both
#: are of one reader run (``ClassAd.layout``, the same set) whose mark holds none of
#: the memo's names: the run's ads bind every name outside their mark to the very same
#: entry objects (``ClassAd._from_attrs``' invariant), so their ``entry_key`` is the
#: same and so is the hit (a cluster's jobs: one key per cluster, not per job). A
#: module flag so that the tests run both ways.
_RUNS = True

#: Whether ``decode`` takes the *run pass* (``run_pass.decode_runs``) before
#: ``_decode_kind``: a reader run's jobs built in one loop from their cluster
#: (``run_pass.run_jobs``) and the identities checked once for the whole kind, not ad
#: by ad. A module flag so that the tests run both ways.
RUN_PASS = True

#: Whether the run pass decodes a slot ad of a known key by its ``KnownSlots`` (one
#: key for the screen's and the facts' names, then what is the slot's own) before
#: the screen and ``AdDecoder.slot``. A module flag so that the tests run both ways.
KNOWN_SLOTS = True


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
    (``ad_convert.PlainJobs``) skip the screen and the checks."""
    out: list[Any] = []
    seen: dict[str, LoadedAd] = {}  # identity -> the ad that first had it
    converted = Converter(kind, convert, problems, decoder)
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
            problems.append(problem(kind, loaded, f"duplicate {what} {key} (first in "
                                     f"{first.source} ad {first.index + 1}); skipped"))
            continue
        out.append(item)
    return out


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
    """``_decode_kind``, by the run pass (``run_pass.decode_runs``, with ``known``) first when
    ``RUN_PASS``."""
    if RUN_PASS:
        out = decode_runs(kind, ads, convert, problems, decoder, known)
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
