"""The per-ad part of decoding ``negotiate``'s ads (``cli/negotiate_inputs``): the checks
of ``ad_screen`` and the conversion of one ad (``Converter``), with the memo of job ads
known to pass them (``PlainJobs``), and the problem an ad that does not pass becomes
(``problem``). Shared by the ad-by-ad way (``negotiate_inputs._decode_kind``) and the
run pass (``run_pass.decode_runs``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from condorlite.core import adeval
from condorlite.core.ad_decoder import CLUSTER_NAMES, AdDecoder, Cluster
from condorlite.core.ad_screen import AdScreen
from condorlite.core.classad.ad import ClassAd as _AdClass
from condorlite.core.classad.ad import LazyClassAd as _LazyAd
from condorlite.core.classad.scope import MAX_STEPS
from condorlite.core.entry_keys import entry_key
from condorlite.core.model import AdProblem
from condorlite.store.adfiles import LoadedAd


def problem(kind: str, loaded: LoadedAd, message: str) -> dict[str, Any]:
    # "ad" counts from 1 within its file, as a person would point at it.
    return {"kind": kind, "source": loaded.source, "ad": loaded.index + 1, "problem": message}


class PlainJobs:
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


class Converter:
    """What the reading pass of one kind asks of an ad that no memo answers: the
    checks of ``ad_screen`` and the conversion, in ``negotiate_inputs._decode_kind``'s
    order, the problems appended to ``problems``; a job ad screened plain whose
    cluster the decoder keeps is learnt by ``plain_jobs``."""

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
        self.plain_jobs = PlainJobs()

    def __call__(self, loaded: LoadedAd, index: int) -> Any:
        """The item of ``loaded`` (``index``: its place), or None when it is a
        problem (appended)."""
        kind, ad, problems = self.kind, loaded.ad, self.problems
        screening = self.screen(ad)
        # A plain screening passes every check (``Screening.plain``): only the
        # conversion and the identity are left to look at.
        plain = screening.plain
        if not plain and (foreign := screening.foreign) is not None:
            problems.append(problem(kind, loaded, f'a {foreign} ad (MyType '
                                     f'"{foreign}"), not a {kind} ad'))
            return None
        try:
            item = self.convert(ad, index)
        except AdProblem as exc:
            problems.append(problem(kind, loaded, str(exc)))
            return None
        if not plain:
            if (absurd := screening.absurd) is not None:
                problems.append(problem(kind, loaded, f"{absurd} is not a finite "
                                         f"number up to {adeval.MAX_REQUEST:g}; "
                                         f"skipped"))
                return None
            if (runaway := screening.runaway(ad)) is not None:
                problems.append(problem(kind, loaded, f"{runaway} needs more than "
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

