"""``Reasons.settle_deferred``: a class's deferred held groups add the count of a
matching one (0 when none matches), the groups that matched other classes tried
first (most hits first, ties in the list's order), never a group the list does not
hold; remembered per (class, list)."""

from __future__ import annotations

from types import SimpleNamespace

from condorlite.core.matching import reasons as reasons_module
from condorlite.core.matching.candidates import HeldGroup
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.held_counts import DeferredList, DeferredSource, HeldChanges
from condorlite.core.matching.reasons import Reasons
from condorlite.core.matching.shape_keys import ShapeKeys


def _reasons(matching: dict[int, set[int]], tried: list[tuple[int, int]]) -> Reasons:
    """Reasons over a fake table: class ``c`` matches the pair shapes
    ``matching[c]``; every pair asked is recorded in ``tried``."""
    def pair(class_id, job_ad, offer, signature):
        tried.append((class_id, offer.pair_shape))
        return SimpleNamespace(match=offer.pair_shape in matching[class_id])

    table = SimpleNamespace(now=0, per_submitter=False, pair=pair,
                            preemption_allowed=None, static_vector=lambda offer: None,
                            static_program=None)
    return Reasons(table, EvaluationCount(), ShapeKeys())  # type: ignore[arg-type]


def _settled(reasons: Reasons, class_id: int, deferred: list) -> int:
    cands = SimpleNamespace(signature=(), deferred=deferred, rej_policy=0)
    reasons.settle_deferred(cands, class_id, None)  # type: ignore[arg-type]
    assert cands.deferred == []
    return cands.rej_policy


def _offer(shape: int) -> SimpleNamespace:
    """A held offer of pair shape ``shape`` (static: no resource vector)."""
    return SimpleNamespace(pair_shape=shape, vector=None, partitionable=False)


def _groups(*shapes: int) -> list:
    return [(_offer(s), 10 + s) for s in shapes]


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
    """A ``DeferredList`` (its hit groups found through its source's positions, its
    counts worked out when read) adds the count a plain copy of it made at its making
    adds, trying the same groups in the same order, though offers leave the groups
    after the making: a group the submitter held all of is never tried, one it held
    some of adds what the list held of it."""
    groups, offers = [], []
    for shape, holders in enumerate(["ab", "a", "b", "abb", "c", "aab"]):
        group = HeldGroup()
        for holder in holders:
            group.add(_Held(holder))
            offers.append((shape, group, _Held(holder)))
        groups.append((_offer(shape), group))
    source = DeferredSource(groups)
    changes = HeldChanges()
    matching = {1: {1, 3}, 2: {1, 3, 5}, 3: set(), 4: {0, 1, 3, 5}}
    for submitter in "abc":
        listed = DeferredList(source, submitter, 0, changes)
        plain = list(listed)
        answers = []
        for each in (listed, plain):
            tried: list[tuple[int, int]] = []
            reasons = _reasons(matching, tried)
            answers.append(([_settled(reasons, c, each) for c in (1, 2, 3, 4)], tried))
        assert answers[0] == answers[1]
        if submitter == "a":
            assert answers[0][0] == [2, 2, 0, 2]  # 1 is all a's; 3 keeps its two b's
    made = {submitter: DeferredList(source, submitter, 0, changes) for submitter in "abc"}
    plains = {submitter: list(listed) for submitter, listed in made.items()}
    # every b and c offer leaves after the making, and an a offer joins group 2
    epoch = 0
    for shape, group, offer in offers:
        if offer.holder != "a":
            group.remove(offer)
            epoch += 1
            changes.note(shape, epoch, offer.holder, 1)
    joined = _Held("a")
    groups[2][1].add(joined)
    changes.note(2, epoch + 1, "a", -1)
    for submitter, listed in made.items():
        assert list(listed) == plains[submitter]
        at = listed.positions()
        assert [e for first, _ in groups
                if (e := listed.entry(at[first.pair_shape])) is not None] == plains[submitter]
        answers = []
        for each in (listed, plains[submitter]):
            tried = []
            reasons = _reasons(matching, tried)
            answers.append(([_settled(reasons, c, each) for c in (1, 2, 3, 4)], tried))
        assert answers[0] == answers[1]
    # made now, the lists hold what is left: c's and b's offers gone, a's own
    assert list(DeferredList(source, "a", epoch + 1, changes)) == []
    assert [count for _, count in DeferredList(source, "c", epoch + 1, changes)] == [
        1, 1, 1, 1, 2]


def test_a_deferred_list_blind_to_the_changes_is_caught():
    """Counts read now, not as of the making, differ once offers leave: the check
    above would catch a list that did not undo the changes."""
    group = HeldGroup()
    offer = _Held("b")
    group.add(offer)
    changes = HeldChanges()
    listed = DeferredList(DeferredSource([(_offer(0), group)]), "a", 0, changes)
    group.remove(offer)
    blind = DeferredList(DeferredSource([(_offer(0), group)]), "a", 0, changes)
    assert list(blind) == []  # (no change noted: now's count)
    changes.note(0, 1, "b", 1)
    assert [count for _, count in listed] == [1]


class _Program:
    """A class key's program of a static part: matches the numbers in ``passes``
    (``never``: none at all)."""

    def __init__(self, passes: set[int], never: bool = False) -> None:
        self.passes, self.never, self.runs = passes, never, []

    def run(self, vals, as_rank):
        self.runs.append(vals[0])
        return (vals[0] in self.passes, 0.0, {}, None)


def test_groups_of_a_shared_part_asked_by_the_part_program(monkeypatch):
    """A static group of a shared part is answered by the class key's program of the
    part at its numbers (no pair; none at all when that program never matches), any
    other group by its pair: the same group found, so the same count and hits, as
    every group asked by its pair (``BY_PART`` off)."""
    # pair shapes 0-9: part 1 (odd shapes, number = shape), part 2 (shapes 2, 4),
    # the rest of no shared part
    parts = {s: 1 for s in (1, 3, 5, 7, 9)} | {2: 2, 4: 2}
    programs = {(1, 1): _Program({5, 9}), (1, 2): _Program(set(), never=True),
                (2, 1): _Program(set(), never=True), (2, 2): _Program({4}),
                (3, 1): _Program(set()), (3, 2): None}
    matching = {1: {5, 9}, 2: {4, 6}, 3: {8}, 4: set()}

    def vector(offer):
        part = parts.get(offer.pair_shape)
        return None if part is None else SimpleNamespace(static=part,
                                                         vals=(offer.pair_shape,))

    def program(klass, job_ad, offer):
        return programs.get((klass[0], parts[offer.pair_shape]))

    listed = _groups(*range(10))
    answers = []
    for by_part in (True, False):
        monkeypatch.setattr(reasons_module, "BY_PART", by_part)
        tried: list[tuple[int, int]] = []
        reasons = _reasons(matching, tried)
        reasons._vector_of, reasons._program_of = vector, program
        counts = [_settled(reasons, c, listed) for c in (1, 2, 3, 1, 3)]
        answers.append((counts, dict(reasons._held_hits)))
        if by_part:
            # class 1: 0 by its pair (no part), 2 and 4 passed over (a program that
            # never matches), 1, 3, 5 by the program; class 2: the hit 5 by its
            # pair, then 0, and 2, 4 by its program; class 3: the hits 4 and 5 by
            # their pairs, 0, 6 and 8 by theirs (no part) and 2 (no program), 1, 3,
            # 7 by the program; the last two classes remembered
            assert tried == [(1, 0), (2, 5), (2, 0), (3, 4), (3, 5), (3, 0), (3, 2),
                             (3, 6), (3, 8)]
            assert programs[(1, 1)].runs == [1, 3, 5]
            assert programs[(2, 2)].runs == [2, 4]
            assert programs[(1, 2)].runs == programs[(2, 1)].runs == []
            assert programs[(3, 1)].runs == [1, 3, 7]
    assert answers[0] == answers[1]
    assert answers[0][0] == [15, 14, 18, 15, 18]
