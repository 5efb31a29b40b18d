"""``held_refusals``: with priority preemption on, the held groups a submitter's lists
can never list (its own, or refused by ``PREEMPTION_REQUIREMENTS`` by the numbers it
reads, with a literal slot ``Rank`` that prefers no job) are passed over by the walks
without their pair, and count for a rejection only through ``settle_deferred``.
Checked against the plain reference cycle with the mechanism on and off, and shown to
matter: each condition left out decides otherwise."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from condorlite.core import adeval
from condorlite.core.matching import held_refusals
from condorlite.core.matching.held_refusals import (
    NO_KEYS,
    OWN,
    REFUSED,
    GroupKeys,
    HeldRefusals,
    Refusals,
)
from condorlite.core.matching.held_walks import HeldWalks
from condorlite.core.model import Submitter
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import ad_text, run_both

#: holders and submitters, by EUP: new (600) may preempt old0, old2 and mid by the
#: policy below; mid (1,100) old0 and old2 only; old0 and old1 (700) nobody
EUPS = {"old0": 2000.0, "old1": 700.0, "old2": 2000.0, "mid": 1100.0, "new": 600.0}
#: a policy that would let a submitter preempt itself (and old0 old2)
LAX = Policy(uid_domain=UID, preemption_requirements="RemoteUserPrio >= SubmitterUserPrio")
SUBS = {f"{n}@{UID}": Submitter(f"{n}@{UID}", eup=e, usage=0.0) for n, e in EUPS.items()}
POLICY = Policy(uid_domain=UID,
                preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2")


def _slot(name: str, disk: int, holder: str, rank: str = "0") -> str:
    return ad_text({
        "Name": f'"{name}"', "Machine": f'"{name}"', "SlotID": 1, "State": '"Claimed"',
        "Activity": '"Busy"', "Cpus": 1, "Memory": 2048, "Disk": disk,
        "Arch": '"X86_64"', "OpSys": '"LINUX"', "Requirements": "START", "START": "true",
        "Rank": rank, "CurrentRank": 0, "SlotWeight": "Cpus",
        "RemoteUser": f'"{holder}@{UID}"', "RemoteOwner": f'"{holder}"',
        "TotalJobRunTime": 100 + disk // 1000})


def _job(cluster: int, procs: int, owner: str, low: int, high: int) -> list[str]:
    return [ad_text({
        "ClusterId": cluster, "ProcId": p, "Owner": f'"{owner}"', "JobStatus": 1,
        "JobPrio": 0, "QDate": 1000 + cluster, "RequestCpus": 1, "RequestMemory": 1024,
        "RequestDisk": 100,
        "Requirements": f"TARGET.Disk >= {low} && TARGET.Disk <= {high}"})
        for p in range(procs)]


HOLDERS = ("old0", "old1", "mid")
# Twelve desktops, each its own Disk (its own pair shape); every fourth prefers any
# job by its literal Rank (a rank preemption whatever the policy says). Two more of one
# Disk, held by old2 and old0 (one priority): one pair shape of two holders.
SLOTS = ([_slot(f"d{n:02d}", 1000 * (n + 1), HOLDERS[n % 3], "10" if n % 4 == 3 else "0")
          for n in range(12)]
         + [_slot("e1", 20000, "old2"), _slot("e2", 20000, "old0")])
# new wants the small disks; old0 the two-holder pair; mid the middle ones; old1 the
# large ones, which nobody's policy lets it take but slot d11 (by rank).
JOBS = (_job(1, 3, "new", 1000, 6000) + _job(2, 2, "old0", 20000, 20000)
        + _job(3, 3, "mid", 4000, 9000) + _job(4, 2, "old1", 7000, 12000)
        + _job(5, 2, "old1", 1000, 3000))


def _off(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(HeldRefusals, "refusals", lambda self, *args: None)


def _matches(result) -> list[tuple[str, str, str]]:
    return sorted((m.job, m.slot, m.reason) for m in result.matches)


def _rejections(result) -> list[tuple[str, str]]:
    return sorted((r.job, r.reason) for r in result.rejections)


def test_refused_groups_passed_over_decide_as_the_reference(monkeypatch) -> None:
    fast, on = run_both(SLOTS, JOBS, POLICY, SUBS)
    walks = fast.mm.lists._walks
    passed = {slot.first.name for _, walk in walks._kept.values() for slot in walk.passed}
    # old1's own desktops and the ones its policy refuses, and new's refused ones:
    # never a desktop that prefers a job by rank, nor the two-holder pair shape
    assert passed and not passed & {"d03", "d07", "d11", "e1", "e2"}
    two = {o.pair_shape for o in fast.offers if o.name in ("e1", "e2")}
    assert len(two) == 1  # (one group of two holders: no policy key)
    assert {m.reason for m in on.matches} == {"rank", "priority"}
    # old1's jobs on d01-d03 are rejected for the policy (the refusal counted by the
    # passed groups, settled at the rejection)
    assert any(r.reason == "PREEMPTION_REQUIREMENTS == False" for r in on.rejections)
    with monkeypatch.context() as patch:
        _off(patch)
        off_cycle, off = run_both(SLOTS, JOBS, POLICY, SUBS)
    assert _matches(off) == _matches(on) and _rejections(off) == _rejections(on)
    assert fast.mm.evaluations < off_cycle.mm.evaluations


def test_keys_blind_to_a_preferring_rank_decide_otherwise(monkeypatch) -> None:
    # A desktop whose literal Rank beats CurrentRank keyed like the others: refused
    # for old1, its rank preemption is lost.
    monkeypatch.setattr(held_refusals, "adeval", SimpleNamespace(
        attr=adeval.attr, slot_rank=lambda value: float("-inf")))
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY, SUBS)


def test_keys_of_one_holder_for_a_mixed_group_decide_otherwise(monkeypatch) -> None:
    # The two-holder pair shape keyed by its first offer's holder: under a policy
    # that lets old0 take old2's slot, old0's own slot there is listed with it (or
    # both passed over, old2's with old0's).
    run_both(SLOTS, JOBS, LAX, SUBS)
    monkeypatch.setattr(HeldRefusals, "_work_out", _first_holder)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, LAX, SUBS)


def _first_holder(self, group, first):  # type: ignore[no-untyped-def]
    numbers = self._preq.slot_key(first)
    if numbers is None:
        return NO_KEYS
    found = (first.holder, numbers)
    key = self._numbering.get(found)
    if key is None:
        key = self._numbering[found] = len(self._standing)
        self._standing.append(held_refusals.KeyStanding(
            first.holder, first, numbers, self._preq.slot_side(first)))
    return GroupKeys(key if str(first.ad.evaluate("Rank")) == "0" else None, key)


def test_own_groups_left_unrefused_decide_otherwise(monkeypatch) -> None:
    # With a policy that would let a submitter preempt itself, only the own-holder
    # rule keeps mid's desktops from mid's jobs: left out, they are listed.
    run_both(SLOTS, JOBS, LAX, SUBS)
    refuses = Refusals.refuses

    def not_own(self, key):  # type: ignore[no-untyped-def]
        self._submitter = None
        return refuses(self, key)

    monkeypatch.setattr(Refusals, "refuses", not_own)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, LAX, SUBS)


def test_kept_walks_shared_between_refusals_decide_otherwise(monkeypatch) -> None:
    # One kept walk per class key whatever the submitter's refusals: a class of two
    # submitters' jobs takes the first one's passed groups (and its allowed marks).
    matching = HeldWalks.matching
    first: dict = {}

    def shared(self, klass, job_ad, signature, known_pairs, refusals=None):  # type: ignore[no-untyped-def]
        return matching(self, klass, job_ad, signature, known_pairs,
                        first.setdefault(klass, refusals))

    monkeypatch.setattr(HeldWalks, "matching", shared)
    jobs = JOBS + _job(6, 2, "mid", 1000, 6000)  # (new's first class, mid's jobs)
    with pytest.raises(AssertionError):
        run_both(SLOTS, jobs, POLICY, SUBS)


def test_own_groups_counted_as_refused_decide_otherwise(monkeypatch) -> None:
    # The submitter's own groups are left out of the walk's passed groups (never
    # counted, ``HeldLists._deferred`` counting every offer of a passed group): kept
    # in as refused by the policy, old1's rejections count its own desktops.
    refuses = Refusals.refuses

    def own_counted(self, key):  # type: ignore[no-untyped-def]
        found = refuses(self, key)
        if found == OWN:
            found = self.verdicts[key] = REFUSED
        return found

    fast, _ = run_both(SLOTS, JOBS, POLICY, SUBS)
    assert any(v == OWN for r in fast.mm.lists._refusals._refusals.values()
               for v in r.verdicts.values())
    monkeypatch.setattr(Refusals, "refuses", own_counted)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY, SUBS)


#: policies whose residual for a job is one bound on the slot's name (the usual one,
#: the comparison flipped, one that reads no job name) and one that is not (two atoms)
BOUND_POLICIES = [
    ("RemoteUserPrio > SubmitterUserPrio * 1.2", True),
    ("SubmitterUserPrio * 1.2 <= MY.RemoteUserPrio", True),
    ("RemoteUserPrio > 650", True),
    ("RemoteUserPrio > SubmitterUserPrio * 1.2 && RemoteUserPrio < 1500", False),
]
#: the slots' bindings: RemoteUserPrio alone (integers, reals, one equal to a job's
#: bound, a string), or with a second name the policy reads (another set of names)
BOUND_SLOTS = ([{"RemoteUserPrio": v} for v in (700, 700.0, 600.0, 720, 2000, 500, '"x"')]
               + [{"RemoteUserPrio": 700, "SubmitterUserPrio": 1}])
BOUND_JOBS = [{"SubmitterUserPrio": v} for v in (500.0, 600, 1000, 583.3)]


def _refusals_against_the_evaluation(text: str) -> tuple[int, int]:
    """Every key's refusals verdict for every job, against the full evaluation: the
    (known by the bound, asked of ``static_allowed``) counts."""
    from condorlite.core.classad import parse_ad, parse_expr
    from condorlite.core.matching.evaluation_count import EvaluationCount
    from condorlite.core.matching.preq_verdicts import PreqVerdicts
    from tests.core.matching._against_reference import NOW

    expr = parse_expr(text)
    canon: dict = {}

    def number(ad, names):  # type: ignore[no-untyped-def]
        return tuple(canon.setdefault(repr(adeval.attr(ad, n)), len(canon)) for n in names)

    counts = EvaluationCount()
    preq = PreqVerdicts(expr, number, NOW, counts, lambda *args: pytest.fail("no fallback"))
    slots = [parse_ad(ad_text(v)) for v in BOUND_SLOTS]
    standing = []
    for seq, ad in enumerate(slots):
        offer = SimpleNamespace(ad=ad, seq=seq)
        numbers, side = preq.slot_key(offer), preq.slot_side(offer)
        assert numbers is not None and side is not None
        standing.append(held_refusals.KeyStanding(f"h{seq}", offer, numbers, side))
    used = {"known": 0, "allowed": 0}

    def counted(name, fn):  # type: ignore[no-untyped-def]
        def call(*args):  # type: ignore[no-untyped-def]
            used[name] += 1
            return fn(*args)
        return call

    for values in BOUND_JOBS:
        job = parse_ad(ad_text(values))
        mine = preq.job_key(job, {})
        assert mine is not None
        refusals = Refusals(
            "h0", counted("allowed", lambda offer, job=job, mine=mine:
                          preq.static_allowed(job, mine, offer)),
            lambda offer, job=job, mine=mine: preq.static_bound(job, mine, offer),
            counted("known", lambda numbers, verdict, mine=mine:
                    preq.static_known(mine, numbers, verdict)), standing)
        for key in reversed(range(len(slots))):
            got = refusals.refuses(key)
            if key == 0:
                assert got == OWN
                continue
            allowed = adeval.as_bool(adeval.eval_expr(expr, slots[key], job, NOW))
            assert got == (held_refusals.ALLOWED if allowed else REFUSED), (key, values)
    # (one evaluation counted per distinct pair of numbers, known or evaluated)
    assert counts.evaluations == len(preq._by_static)
    return used["known"], used["allowed"]


@pytest.mark.parametrize(("text", "is_bound"), BOUND_POLICIES)
def test_refusals_by_the_bound_equal_the_evaluation(text: str, is_bound: bool) -> None:
    # A key's verdict by the residual's one comparison where the slot binds that name
    # alone to a number of the bound's type; asked of the static table otherwise (the
    # string, the slot binding two names, a bound of another type, a conjunction).
    known, allowed = _refusals_against_the_evaluation(text)
    if is_bound:
        assert known and allowed
    else:
        assert not known and allowed


def test_a_bound_compared_otherwise_decides_otherwise(monkeypatch) -> None:
    # ``>`` taken as ``>=``: the slot at exactly the job's bound (600.0 for 500.0 x
    # 1.2) is allowed where the policy refuses it.
    from condorlite.core.matching import preq_verdicts
    monkeypatch.setitem(preq_verdicts.PY_COMPARE, ">", preq_verdicts.PY_COMPARE[">="])
    with pytest.raises(AssertionError):
        _refusals_against_the_evaluation(BOUND_POLICIES[0][0])
