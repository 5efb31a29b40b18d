"""A slot's own START folded before matching (``own_policy``), against the reference.

Each case runs the optimised cycle and the plain reference cycle (which evaluates the
slots' original ads) and requires the same outcome; the cases check that the folding
took place and collapsed what it should: desktops whose START reads their own
``KeyboardIdle`` and ``LoadAvg`` share shapes once folded. The partitionable case
folds nothing carving rebinds: a START that reads the slot's own ``Cpus`` must see
each carved state's.
"""

from __future__ import annotations

from condorlite.core.classad.ast import Literal
from condorlite.core.matching import own_policy
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import ad_text, run_both

POLICY = Policy(uid_domain="example.org")
OWNERS = ("alice", "bob", "carol")


def _desktop(i: int, **extra: object) -> str:
    owner = OWNERS[i % 3]
    attrs = dict(Name=f'"slot1@desk{i}"', Machine=f'"desk{i}"', State='"Unclaimed"',
                 Activity='"Idle"', Cpus=1, Memory=4096, Disk=100000, Arch='"X86_64"',
                 OpSys='"LINUX"', KeyboardIdle=60 * (i * 7 % 40), LoadAvg=(i % 9) / 10,
                 START=f'(KeyboardIdle > 15 * 60 && LoadAvg < 0.5) || '
                       f'(TARGET.Owner == "{owner}@example.org")',
                 Requirements="START", Rank="0.0", CurrentRank="0.0", SlotWeight="Cpus")
    attrs.update(extra)
    return ad_text(attrs)


def _job(cluster: int, proc: int, owner: str, **extra: object) -> str:
    attrs = dict(ClusterId=cluster, ProcId=proc, Owner=f'"{owner}@example.org"', JobStatus=1,
                 JobPrio=0, QDate=1000 + cluster, RequestCpus=1, RequestMemory=1024,
                 RequestDisk=1000, Requirements='TARGET.Arch == "X86_64"')
    attrs.update(extra)
    return ad_text(attrs)


def _jobs(per: int = 6) -> list[str]:
    return [_job(c, p, OWNERS[c % 3]) for c in range(1, 7) for p in range(per)]


def _folded_starts(fast) -> list:
    return [o.ad.lookup("start") for o in fast.offers]


def test_desktops_fold_their_own_numbers_and_match_as_in_full():
    fast, result = run_both([_desktop(i) for i in range(40)], _jobs(), POLICY)
    starts = _folded_starts(fast)
    # idle and quiet desktops fold to true; the others keep only the owner test
    assert sum(1 for s in starts if s == Literal(True)) >= 5
    assert all("KeyboardIdle" not in str(s) and "LoadAvg" not in str(s) for s in starts)
    # 40 desktops, each with its own numbers: shapes as few as what START decides
    assert fast.mm.shape_count <= 4
    # the slot's original ad is untouched
    assert all("KeyboardIdle" in str(o.slot.ad.lookup("start")) for o in fast.offers)
    assert {m.slot for m in result.matches}


def test_without_folding_every_desktop_is_a_shape(monkeypatch):
    monkeypatch.setattr(own_policy.OwnPolicy, "changes", lambda self, offer: {})
    fast, _ = run_both([_desktop(i) for i in range(40)], _jobs(), POLICY)
    assert fast.mm.shape_count >= 30


def test_a_start_reading_what_carving_changes_is_not_folded():
    # partitionable desktops whose START reads their own Cpus: folding Cpus would let
    # a carved state with one core left take a job START refuses
    pslots = [_desktop(i, Name=f'"slot1@p{i}"', Machine=f'"p{i}"', PartitionableSlot="true",
                       SlotType='"Partitionable"', Cpus=4, Memory=16384,
                       START=f'(Cpus >= 2 && KeyboardIdle > 15 * 60) || '
                             f'(TARGET.Owner == "{OWNERS[i % 3]}@example.org")')
              for i in range(12)]
    fast, result = run_both(pslots, _jobs(10), POLICY)
    starts = _folded_starts(fast)
    assert all("KeyboardIdle" not in str(s) for s in starts)
    assert any("Cpus" in str(s) for s in starts)
    assert len(result.matches) > 12


def test_claimed_desktops_keep_the_names_the_negotiator_inserts():
    # RemoteUserPrio is bound in a claimed slot's offer by the cycle (``REMOTE_ATTRS``):
    # never folded; RemoteOwner, read from the ad, is
    held = [_desktop(i, State='"Claimed"', Activity='"Busy"', RemoteUser='"dave@example.org"',
                     RemoteOwner='"dave@example.org"',
                     START='(KeyboardIdle > 15 * 60 && RemoteOwner == "dave@example.org") '
                           '|| (RemoteUserPrio > 1000)')
            for i in range(40, 52)]
    policy = Policy(uid_domain="example.org", preemption_requirements="true")
    fast, _ = run_both([_desktop(i) for i in range(30)] + held, _jobs(8), policy)
    starts = [o.ad.lookup("start") for o in fast.offers if o.holder is not None]
    assert {str(s) for s in starts} >= {str(Literal(True))}
    busy = [s for s in starts if s != Literal(True)]
    assert busy and all("RemoteUserPrio" in str(s) and "RemoteOwner" not in str(s)
                        for s in busy)
