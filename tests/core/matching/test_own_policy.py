"""A slot's own START folded before matching (``own_policy``), against the reference.

Each case runs the optimised cycle and the plain reference cycle (which evaluates the
slots' original ads) and requires the same outcome; the cases check that the folding
took place and collapsed what it should: desktops whose START reads their own
``KeyboardIdle`` and ``LoadAvg`` share shapes once folded. The folds keyed on what
``KeyboardIdle``'s comparisons decide (``DECIDED``) are, entry for entry, the folds
made per value. The partitionable case
folds nothing carving rebinds: a START that reads the slot's own ``Cpus`` must see
each carved state's.
"""

from __future__ import annotations

import pytest

from condorlite.core.classad.ast import Literal
from condorlite.core.classad.printer import unparse
from condorlite.core.matching import own_policy
from condorlite.core.matching.own_policy import OwnPolicy
from condorlite.core.negotiation.offer_pool import build_offers
from condorlite.core.policy import Policy
from tests.core._pool import decoded_texts
from tests.core.matching._against_reference import NOW, ad_text, run_both

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


@pytest.mark.parametrize("decided", [True, False])
def test_desktops_fold_their_own_numbers_and_match_as_in_full(monkeypatch, decided):
    monkeypatch.setattr(own_policy, "DECIDED", decided)
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


#: ``KeyboardIdle`` bindings: integers on each side of the comparisons' constants,
#: and what is keyed on its entry (not an integer literal within 64 bits)
_IDLE = ["-1", "0", "59", "60", "61", "899", "900", "901", "86400", "9223372036854775807",
         "900.0", "true", '"900"', "undefined", "error", "Memory - 3000"]


def _changes(decided: bool, texts: list[str], monkeypatch) -> tuple[list, int]:
    """Each offer's ``OwnPolicy.changes`` as text, and how many folds were made."""
    monkeypatch.setattr(own_policy, "DECIDED", decided)
    made = [0]
    fold_own = own_policy.fold_own

    def counted(*args, **kwargs):
        made[0] += 1
        return fold_own(*args, **kwargs)

    monkeypatch.setattr(own_policy, "fold_own", counted)
    policy = OwnPolicy(frozenset({"cpus", "memory", "disk"}))
    slots, _ = decoded_texts(texts, [], POLICY, shared=True)
    out = []
    for offer in build_offers(slots, [], NOW, lambda user: {}):
        changes = policy.changes(offer)
        out.append({name: (entry[0], unparse(entry[1]), type(entry[1]).__name__)
                    for name, entry in changes.items()})
    return out, made[0]


@pytest.mark.parametrize("start", [
    "(KeyboardIdle > 15 * 60) || (TARGET.Owner == \"{owner}@example.org\")",
    "(KeyboardIdle > 900 && 60 <= MY.KeyboardIdle && LoadAvg < 0.5) || "
    "(TARGET.Owner == \"{owner}@example.org\")",
    "ifThenElse(KeyboardIdle != 60, TARGET.Owner == \"{owner}@example.org\", false)",
    # (read elsewhere too, or against what reads a name: keyed on the entry)
    "KeyboardIdle > 900 || TARGET.ImageSize < KeyboardIdle",
    "KeyboardIdle > Memory || TARGET.Owner == \"{owner}@example.org\"",
])
def test_folds_keyed_on_what_the_comparisons_decide_are_the_folds_per_value(
        monkeypatch, start):
    texts = [_desktop(i, Name=f'"slot1@d{i}"', KeyboardIdle=_IDLE[i % len(_IDLE)],
                      LoadAvg=0.2, START=start.format(owner=OWNERS[i // len(_IDLE)]))
             for i in range(3 * len(_IDLE))]
    decided, made = _changes(True, texts, monkeypatch)
    per_value, made_per_value = _changes(False, texts, monkeypatch)
    assert decided == per_value
    assert made_per_value >= len(_IDLE)
    if "Memory" in start or "ImageSize" in start:
        assert made == made_per_value
    elif start.startswith("(KeyboardIdle > 15"):
        # three owners x (two outcomes, six bindings keyed on their entries), and
        # each owner's Requirements (``START``, keyed on the owner's START entry)
        assert made == 3 * (2 + 6) + 3
    else:  # (``LoadAvg``, compared with a real, keyed on its one entry)
        assert made < made_per_value
