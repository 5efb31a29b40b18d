"""``Reasons.settle_deferred``: a class's deferred held groups add the count of a
matching one (0 when none matches), the groups that matched other classes tried
first (most hits first, ties in the list's order), never a group the list does not
hold; remembered per (class, list)."""

from __future__ import annotations

from types import SimpleNamespace

from condorlite.core.matching.autocluster import ShapeKeys
from condorlite.core.matching.candidates import HeldGroup
from condorlite.core.matching.held_groups import DeferredCounts
from condorlite.core.matching.offer_shapes import EvaluationCount
from condorlite.core.matching.reasons import Reasons


def _reasons(matching: dict[int, set[int]], tried: list[tuple[int, int]]) -> Reasons:
    """Reasons over a fake table: class ``c`` matches the pair shapes
    ``matching[c]``; every pair asked is recorded in ``tried``."""
    def pair(class_id, job_ad, offer, signature):
        tried.append((class_id, offer.pair_shape))
        return SimpleNamespace(match=offer.pair_shape in matching[class_id])

    table = SimpleNamespace(now=0, per_submitter=False, pair=pair,
                            preemption_allowed=None)
    return Reasons(table, EvaluationCount(), ShapeKeys())  # type: ignore[arg-type]


def _settled(reasons: Reasons, class_id: int, deferred: list) -> int:
    cands = SimpleNamespace(signature=(), deferred=deferred, rej_policy=0)
    reasons.settle_deferred(cands, class_id, None)  # type: ignore[arg-type]
    assert cands.deferred == []
    return cands.rej_policy


def _groups(*shapes: int) -> list:
    return [(SimpleNamespace(pair_shape=s), 10 + s) for s in shapes]


def test_a_matching_group_counts_and_hits_are_tried_first():
    tried: list[tuple[int, int]] = []
    reasons = _reasons({1: {4}, 2: {2, 4, 5}, 3: {5}, 4: set(), 5: {4, 5}}, tried)
    listed = _groups(1, 2, 3, 4, 5)
    assert _settled(reasons, 1, listed) == 14  # 1, 2, 3, then 4
    assert tried == [(1, 1), (1, 2), (1, 3), (1, 4)]
    tried.clear()
    assert _settled(reasons, 2, listed) == 14  # the hit first
    assert tried == [(2, 4)]
    tried.clear()
    assert _settled(reasons, 3, listed) == 15  # 4 (a hit) fails, then the list in order
    assert tried == [(3, 4), (3, 1), (3, 2), (3, 3), (3, 5)]
    tried.clear()
    assert _settled(reasons, 4, listed) == 0  # nothing matches: every group once
    assert sorted(tried) == [(4, s) for s in range(1, 6)]
    tried.clear()
    # 4 has three hits, 5 one: 4 first; a list without 4 never tries it
    assert _settled(reasons, 5, _groups(1, 5)) == 15
    assert tried == [(5, 5)]
    tried.clear()
    assert _settled(reasons, 1, listed) == 14  # (class, list) remembered
    assert tried == []


class _Held:
    def __init__(self, holder: str) -> None:
        self.holder, self.current_rank = holder, 0.0


def test_a_deferred_list_settles_as_its_plain_copy():
    """A ``DeferredList`` (its hit groups found through its source's positions) adds
    the count a plain copy of it adds, trying the same groups in the same order: a
    group the submitter holds all of is never tried, one it holds some of adds what
    the list holds of it."""
    groups = []
    for shape, holders in enumerate(["ab", "a", "b", "abb", "c", "aab"]):
        group = HeldGroup()
        for holder in holders:
            group.add(_Held(holder))
        groups.append((SimpleNamespace(pair_shape=shape), group))
    source = DeferredCounts(groups)
    matching = {1: {1, 3}, 2: {1, 3, 5}, 3: set(), 4: {0, 1, 3, 5}}
    for submitter in "abc":
        answers = []
        for listed in (source.of(submitter), list(source.of(submitter))):
            tried: list[tuple[int, int]] = []
            reasons = _reasons(matching, tried)
            answers.append(([_settled(reasons, c, listed) for c in (1, 2, 3, 4)], tried))
        assert answers[0] == answers[1]
        if submitter == "a":
            assert answers[0][0] == [2, 2, 0, 2]  # 1 is all a's; 3 keeps its two b's
