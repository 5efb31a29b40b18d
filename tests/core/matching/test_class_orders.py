"""A class's entries of desktops (offers nobody holds whose pre-job rank reads the job,
through the slot's ``Rank = TARGET.Owner == ...``) made from the class's own order of
-pre as the list's merge reads them (``ordered_states.class_items``,
``carved_lists.CLASS_ORDERED``).

Each cycle runs with the class order on and off; both must decide as the plain
reference cycle does, and the order must have done its work (sources made, fewer
states run than items listed). ``class_items`` itself is checked against the walk's
own entries: the entries a source makes when read to the end are the sorted entries
the walk makes of the same static for the same class.
"""

from __future__ import annotations

import pytest

from condorlite.core.matching import carved_lists
from condorlite.core.matching.candidates import PRE
from condorlite.core.matching.ordered_states import OrderedStates
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import WITHIN_RESOURCE_LIMITS, ad_text, run_both
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol", "dave")


@pytest.fixture(autouse=True)
def _small_statics_ordered(monkeypatch) -> None:
    # (these pools' statics hold a few dozen offers: ordered all the same here)
    monkeypatch.setattr(carved_lists, "CLASS_ORDER_MIN", 1)


def _desktop(i: int, cpus: int = 8) -> str:
    owner = USERS[i % len(USERS)]
    attrs = dict(Name=f'"slot1@desk{i:03d}"', Machine=f'"desk{i:03d}"',
                 State='"Unclaimed"', Activity='"Idle"', PartitionableSlot="true",
                 Cpus=cpus, Memory=4096 * (1 + i % 5), Disk=100000 + 911 * i,
                 Arch='"X86_64"', OpSys='"LINUX"', KeyboardIdle=3600 if i % 3 else 60,
                 Start=f'(KeyboardIdle > 15 * 60) || (TARGET.Owner == "{owner}@example.org")',
                 Requirements="START && WithinResourceLimits",
                 WithinResourceLimits=WITHIN_RESOURCE_LIMITS,
                 Rank=f'TARGET.Owner == "{owner}@example.org"', CurrentRank="0.0",
                 SlotWeight="Cpus")
    return ad_text(attrs)


def _jobs(per: int, rank: str = "0.0") -> list[str]:
    out = []
    for cluster in range(1, 9):
        owner = USERS[cluster % len(USERS)] if cluster % 4 else "erin"
        out.extend("\n".join(f"{k} = {v}" for k, v in dict(
            ClusterId=cluster, ProcId=proc, Owner=f'"{owner}@example.org"', JobStatus=1,
            JobPrio=0, QDate=1000 + cluster, RequestCpus=1 + cluster % 3,
            RequestMemory=1024 * (1 + cluster % 4), RequestDisk=1000 + 10 * cluster,
            Rank=rank if cluster % 2 else "0.0",
            Requirements="TARGET.Disk >= RequestDisk").items()) + "\n"
            for proc in range(per))
    return out


class _Sources:
    """The class-ordered sources made in a cycle, kept through ``patch``."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.sources: list[OrderedStates] = []
        made = carved_lists.CarvedLists._class_order
        kept = self

        def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
            source = made(*args, **kwargs)
            if source is not None:
                kept.sources.append(source)
            return source

        patch.setattr(carved_lists.CarvedLists, "_class_order", counting)


def _cycle(slots, jobs, on: bool, monkeypatch):
    monkeypatch.setattr(carved_lists, "CLASS_ORDERED", on)
    return run_both(slots, jobs, POLICY)


@pytest.mark.parametrize(("n_desktops", "per", "rank"), [
    (40, 6, "0.0"), (90, 12, "0.0"), (60, 8, "TARGET.Memory"), (60, 8, "KeyboardIdle")])
def test_desktops_in_class_order_decide_as_the_walk(monkeypatch, n_desktops, per, rank):
    slots, jobs = [_desktop(i) for i in range(n_desktops)], _jobs(per, rank)
    with monkeypatch.context() as patch:
        made = _Sources(patch)
        fast, result = _cycle(slots, jobs, True, patch)
    _, walked = _cycle(slots, jobs, False, monkeypatch)
    assert _fingerprint(result) == _fingerprint(walked)
    assert made.sources
    # (each source's entries are sorted, and their first key is the item's -pre)
    for source in made.sources:
        assert source.entries == sorted(source.entries)
        assert source.items == sorted(source.items)
        keys = {item[1]: item[0] for item in source.items}
        assert all(entry[0] == keys[entry[6]] for entry in source.entries)


def test_the_merge_reads_part_of_the_order(monkeypatch) -> None:
    """Over a list's first chunk of desktops, the states past it are never run."""
    slots, jobs = [_desktop(i, 16) for i in range(200)], _jobs(3)
    with monkeypatch.context() as patch:
        made = _Sources(patch)
        _cycle(slots, jobs, True, patch)
    items = sum(len(s.items) for s in made.sources)
    reached = sum(s._at for s in made.sources)
    assert reached < items


def test_source_read_whole_gives_the_walks_entries(monkeypatch) -> None:
    """A class order read to its end makes exactly the entries the walk makes of the
    same statics for the same class (``_fitting_candidates``), in sorted order."""
    slots, jobs = [_desktop(i) for i in range(48)], _jobs(4)
    walks: dict[tuple, list] = {}
    ordered: dict[tuple, list] = {}
    walk = carved_lists.CarvedLists._fitting_candidates
    made = carved_lists.CarvedLists._class_order

    def walking(self, build, shapes, *args):  # type: ignore[no-untyped-def]
        before = len(build.out.entries)
        found = walk(self, build, shapes, *args)
        key = (build.class_id, id(build.out), tuple(sorted(shapes)))
        walks[key] = sorted(build.out.entries[before:])
        return found

    def ordering(self, build, static, shapes, *args):  # type: ignore[no-untyped-def]
        source = made(self, build, static, shapes, *args)
        if source is not None:
            # (a copy of the source, read whole at once: the list's own one is read
            # as its merge goes)
            copy = OrderedStates(list(source.items), source._registry, source._pair_of,
                                 source._left, source._fixed, source._fitting, None,
                                 source._program, dict(source._known), source._counts,
                                 source._column)
            copy.grow(len(copy.items) + 1)
            ordered[(build.class_id, id(build.out), tuple(sorted(shapes)))] = copy.entries
        return source

    with monkeypatch.context() as patch:
        patch.setattr(carved_lists.CarvedLists, "_class_order", ordering)
        _cycle(slots, jobs, True, patch)
    with monkeypatch.context() as patch:
        patch.setattr(carved_lists.CarvedLists, "_fitting_candidates", walking)
        _cycle(slots, jobs, False, patch)
    assert ordered
    # (the first list of each class: the same states in both cycles)
    firsts_o = {k[0]: (k[2], v) for k, v in reversed(list(ordered.items()))}
    firsts_w = {k[0]: (k[2], v) for k, v in reversed(list(walks.items()))}
    compared = 0
    for class_id, (shapes, entries) in firsts_o.items():
        if firsts_w.get(class_id, (None,))[0] == shapes:
            assert entries == firsts_w[class_id][1]
            compared += 1
    assert compared
    assert any(entry[0] != entries[0][0] for _, entries in firsts_o.values()
               for entry in entries)


def test_pre_reading_the_job_only_through_the_order(monkeypatch) -> None:
    """The statics taken from a class order are those whose pre-job rank reads the
    job: every source's offers lack ``pre`` among their independent ranks."""
    slots, jobs = [_desktop(i) for i in range(40)], _jobs(5)
    with monkeypatch.context() as patch:
        made = _Sources(patch)
        fast, _ = _cycle(slots, jobs, True, patch)
    assert made.sources
    registry = fast.mm.shapes.registry
    assert all(PRE not in registry[item[1]].independent
               for source in made.sources for item in source.items)
