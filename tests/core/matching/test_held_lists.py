"""``held_lists`` and ``preq_verdicts``: with priority preemption on, a class key's
held entries are made once per submitter (runs by rank and by priority) and shared by
its lists, and ``PREEMPTION_REQUIREMENTS`` is kept by what it reads of both ads, not
per (class, slot shape). Checked against the plain reference cycle, and shown to
matter: each part broken decides otherwise."""

from __future__ import annotations

import itertools
import math
import random
from types import SimpleNamespace

import pytest

from condorlite.core import adeval
from condorlite.core.classad import parse_ad, parse_expr
from condorlite.core.matching import held_lists, preq_verdicts
from condorlite.core.matching.candidates import SharedEntries, make_entries
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.held_lists import HeldLists
from condorlite.core.matching.held_prio import PrioRuns
from condorlite.core.matching.held_refusals import ALLOWED, HeldRefusals
from condorlite.core.matching.held_types import HeldSlot, LaterPairs
from condorlite.core.matching.held_walks import HeldWalks
from condorlite.core.matching.lazy_runs import LazyRun
from condorlite.core.matching.preq_reads import static_reads
from condorlite.core.matching.preq_verdicts import PreqVerdicts
from condorlite.core.matching.reasons import Reasons
from condorlite.core.model import Submitter
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import NOW, ad_text, run_both

#: holders and their EUPs; the new submitters' EUPs (``SUBS``)
HOLDERS = {"old0": 2000.0, "old1": 700.0, "mid": 1100.0}


def _slot(n: int) -> str:
    holder = sorted(HOLDERS)[n % 3]
    return ad_text({
        "Name": f'"slot{n}@m{n}"', "Machine": f'"m{n}"', "SlotID": 1,
        "State": '"Claimed"', "Activity": '"Busy"', "Cpus": 1, "Memory": 2048,
        # (each its own Disk: its own pair shape)
        "Disk": 1000 * (n + 1), 'Arch': '"X86_64"', "OpSys": '"LINUX"',
        "Requirements": "START", "START": "true",
        # a third of the slots prefer the long jobs by rank (rank preemption)
        "Rank": "TARGET.JobLength > 10" if n % 3 == 1 else "0",
        "CurrentRank": 0, "SlotWeight": "Cpus",
        "RemoteUser": f'"{holder}@{UID}"', "RemoteOwner": f'"{holder}"',
        "TotalJobRunTime": 100 + n})


def _job(cluster: int, proc: int, owner: str, disk: int, length: int) -> str:
    return ad_text({
        "ClusterId": cluster, "ProcId": proc, "Owner": f'"{owner}"', "JobStatus": 1,
        "JobPrio": 0, "QDate": 1000 + cluster, "RequestCpus": 1, "RequestMemory": 1024,
        "RequestDisk": disk, "JobLength": length,
        "Requirements": "TARGET.OpSys == \"LINUX\" && TARGET.Disk >= RequestDisk"})


SLOTS = [_slot(n) for n in range(12)]
# Two submitters, two classes each (disk and length differ), more jobs than slots so
# that a class's list is made again in later spins.
JOBS = ([_job(1, p, "new", 3000, 20) for p in range(2)]
        + [_job(2, p, "new", 500, 5) for p in range(5)]
        + [_job(3, p, "mid", 3000, 20) for p in range(2)]
        + [_job(4, p, "mid", 8000, 5) for p in range(3)])
#: new (EUP 600) may preempt old0 and mid; mid (1,100) old0 only; old1 (700) nobody
SUBS = {n: Submitter(n + "@" + UID, eup=e, usage=0.0)
        for n, e in {**HOLDERS, "new": 600.0}.items()}
SUBS = {s.name: s for s in SUBS.values()}
POLICY = Policy(uid_domain=UID,
                preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2")


def _matches(result) -> list[tuple[str, str, str]]:
    return sorted((m.job, m.slot, m.reason) for m in result.matches)


def test_held_lists_decide_as_the_reference_and_are_shared() -> None:
    fast, result = run_both(SLOTS, JOBS, POLICY, SUBS)
    lists = fast.mm.lists._held_lists
    made = lists._lists
    # one held list per (class key, submitter, SubmitterUserPrio), fewer than lists made
    assert {key[1] for key in made} == {"new@" + UID, "mid@" + UID}
    reasons = {m.reason for m in result.matches}
    assert len(reasons) >= 2  # (by rank and by priority, or none, both seen)
    # PREEMPTION_REQUIREMENTS read RemoteUserPrio and SubmitterUserPrio alone: one
    # verdict per (holder's, submitter's) priority, not per (class, slot shape)
    preq = lists._allowed.__self__
    # (both names read off the tree, bound to literals: every verdict by the static
    # table, none specialised)
    assert preq._static == ("remoteuserprio", "submitteruserprio")
    assert not preq._verdicts
    assert 2 <= len(preq._by_static) <= 3 * 2


def test_entries_by_priority_are_shared_between_lists_and_equal_made_ones(monkeypatch) -> None:
    """Entries without dependent ranks are made once per (reason, job rank source,
    offer) (``candidates.SharedEntries``): each equals the entry made afresh, and
    the classes of one job rank take the same tuples (their lists share them). (The
    runs by priority made at once here: in this small pool few lists' scans reach
    them, ``test_runs_by_priority_made_as_the_scans_reach_them``.)"""
    calls = {"entries": 0, "shared": 0}
    real = SharedEntries.entries
    prio_run = PrioRuns.run

    def made_at_once(self, groups, column, later=None):
        run = prio_run(self, groups, column, later)
        run.make()
        return run

    monkeypatch.setattr(PrioRuns, "run", made_at_once)

    def spy(self, seqs, pe, reason, column):
        key = (reason, column if column is not None else pe.job_rank)
        before = dict(self._made.get(key, {}))
        out = real(self, seqs, pe, reason, column)
        assert out == make_entries(self._registry, seqs, pe, reason, column=column)
        calls["entries"] += len(out)
        calls["shared"] += sum(entry is before.get(k) for k, entry in zip(seqs, out, strict=True))
        return out

    monkeypatch.setattr(SharedEntries, "entries", spy)
    run_both(SLOTS, JOBS, POLICY, SUBS)
    assert calls["entries"] and calls["shared"]


def test_runs_by_priority_made_as_the_scans_reach_them(monkeypatch) -> None:
    """A held list's run by priority is made only when a list's merge reaches its
    head (``lazy_runs``): some never are, the cycle decides as the reference; and
    with a head that sorts too late (after every entry of the unheld static list and
    the other runs) the entries by priority come too late and the cycle decides
    otherwise."""
    runs: list[LazyRun] = []
    prio_run = PrioRuns.run

    def kept(self, groups, column, later=None):
        run = prio_run(self, groups, column, later)
        runs.append(run)
        return run

    monkeypatch.setattr(PrioRuns, "run", kept)
    run_both(SLOTS + [_free_slot(n, 1) for n in range(3)], JOBS, POLICY, SUBS)
    assert any(run.made for run in runs) and not all(run.made for run in runs)
    # (free slots of many cores: their entries sort after the held slots')
    slots = SLOTS + [_free_slot(n, 20) for n in range(3)]
    run_both(slots, JOBS, POLICY, SUBS)

    def late(self, groups, column, later=None):
        run = prio_run(self, groups, column, later)
        run.head = (math.inf,)
        run.sentinel = (math.inf, *run.sentinel[1:])
        return run

    monkeypatch.setattr(PrioRuns, "run", late)
    with pytest.raises(AssertionError):
        run_both(slots, JOBS, POLICY, SUBS)


def test_allowed_pairs_worked_out_when_a_run_by_priority_is_made(monkeypatch) -> None:
    """An allowed held group of one offer whose pre-job rank does not read the job
    has its pair worked out only when a run by priority holding it is made
    (``held_types.LaterPairs``, once per walk): some walks leave groups that are never
    worked out, and the cycle decides as the reference; with those groups lost at
    their working out, the runs miss slots they could preempt and the cycle decides
    otherwise."""
    left: list[LaterPairs] = []
    worked: list[LaterPairs] = []
    add, pairs = LaterPairs.add, LaterPairs.pairs

    def adding(self, slots, verdict, sure):  # type: ignore[no-untyped-def]
        left.append(self)
        return add(self, slots, verdict, sure)

    def working(self):  # type: ignore[no-untyped-def]
        worked.append(self)
        return pairs(self)

    slots = SLOTS + [_free_slot(n, 1) for n in range(3)]
    with monkeypatch.context() as patch:
        patch.setattr(LaterPairs, "add", adding)
        patch.setattr(LaterPairs, "pairs", working)
        run_both(slots, JOBS, POLICY, SUBS)
    walks_left = {id(later) for later in left}
    walks_worked = {id(later) for later in worked}
    assert walks_worked and walks_worked < walks_left
    # (free slots of many cores: the entries by priority sort before theirs)
    slots = SLOTS + [_free_slot(n, 20) for n in range(3)]
    run_both(slots, JOBS, POLICY, SUBS)
    monkeypatch.setattr(HeldWalks, "_resolve", lambda self, *args: [])
    with pytest.raises(AssertionError):
        run_both(slots, JOBS, POLICY, SUBS)


def _rank_slot(n: int) -> str:
    """``_slot`` whose Rank reads the job whoever holds it (so its group has a preq
    key and no policy key, ``held_refusals``): it prefers the long jobs by rank."""
    return _slot(n).replace("\nRank = 0\n", "\nRank = TARGET.JobLength > 10\n")


#: every slot's Rank reads the job: mid's own slots, and new's and mid's refused and
#: allowed holders' slots, each a group of one offer with a preq key
RANK_SLOTS = [_rank_slot(n) for n in range(12)]


def _preq_groups(fast) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """How many groups with a preq key alone (no policy key) the cycle's kept walks
    passed over (``HeldWalk.passed``) and left for later (``LaterPairs``)."""
    passed = later = 0
    for _, walk in fast.mm.lists._walks._kept.values():
        passed += sum(slot.policy is None for slot in walk.passed)
        if walk.later is not None:
            later += sum(slot.policy is None for slots, _, _ in walk.later.batches
                         for slot in slots)
    return passed, later


@pytest.mark.parametrize("pre_job_rank", [None, "0 - Memory - Disk / 1000"])
def test_preq_groups_whose_rank_does_not_beat_are_decided_without_their_pair(
        monkeypatch, pre_job_rank: str | None) -> None:
    """A held group of one offer with a preq key whose slot Rank of the class
    (``Reasons.slot_rank``) does not beat its ``CurrentRank`` is listed by priority
    alone (``held_walks`` module doc, 8): the walk passes over it when its list's
    verdict of the key refuses it (counted at a rejection), leaves it out when it is
    the submitter's own, and leaves it for later when allowed and its pre-job rank
    does not read the job (the default one reads ``My.Rank``, which reads the job).
    The cycle decides as the reference; with the slot's Rank taken as never beating,
    the walk leaves out the groups listed by rank too and decides otherwise."""
    policy = POLICY if pre_job_rank is None else Policy(
        uid_domain=UID, preemption_requirements=POLICY.preemption_requirements,
        negotiator_pre_job_rank=pre_job_rank)
    fast, _ = run_both(RANK_SLOTS, JOBS, policy, SUBS)
    passed, later = _preq_groups(fast)
    assert passed
    assert later if pre_job_rank is not None else not later
    monkeypatch.setattr(Reasons, "slot_rank", lambda self, *args: -math.inf)
    with pytest.raises(AssertionError):
        run_both(RANK_SLOTS, JOBS, policy, SUBS)



def _two_rank_slot(n: int) -> str:
    """A slot whose Rank reads the job, one of two Ranks by ``n``'s parity: the long
    jobs beat the ``CurrentRank`` on the odd slots alone (two rank keys)."""
    rank = "TARGET.JobLength > 10" if n % 2 else "TARGET.JobLength > 1000"
    return _slot(n).replace("\nRank = 0\n", f"\nRank = {rank}\n").replace(
        "\nRank = TARGET.JobLength > 10\n", f"\nRank = {rank}\n")


def test_a_walk_asks_a_slot_rank_once_per_rank_key(monkeypatch) -> None:
    """A walk asks the class's slot Rank (``Reasons.slot_rank``) of the preq groups
    it decides without their pair once per rank key (``PartPairs.ranks``): the
    cycle decides as the reference. With every group's rank key taken as one, the
    first group's Rank (which does not beat) stands for the odd slots' (which beat)
    and the cycle decides otherwise."""
    slots = [_two_rank_slot(n) for n in range(12)]
    asked: list[tuple] = []
    #: the number of the ``matching`` call under way, None outside one
    walking: dict[str, int | None] = {"call": None}
    calls = itertools.count()
    slot_rank, matching = Reasons.slot_rank, HeldWalks.matching

    def counted(self, class_id, part, job_ad, offer):  # type: ignore[no-untyped-def]
        if walking["call"] is not None:
            asked.append((walking["call"], class_id, part, self.rank_key(offer)))
        return slot_rank(self, class_id, part, job_ad, offer)

    def walked(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        walking["call"] = next(calls)
        try:
            return matching(self, *args, **kwargs)
        finally:
            walking["call"] = None

    with monkeypatch.context() as patch:
        patch.setattr(Reasons, "slot_rank", counted)
        patch.setattr(HeldWalks, "matching", walked)
        run_both(slots, JOBS, POLICY, SUBS)
    assert len({key[3] for key in asked}) == 2
    assert len(asked) == len(set(asked))  # (no key asked twice by one walk)
    init = HeldSlot.__init__

    def blind(self, *args) -> None:  # type: ignore[no-untyped-def]
        init(self, *args)
        self.rank_key = 0

    monkeypatch.setattr(HeldSlot, "__init__", blind)
    with pytest.raises(AssertionError):
        run_both(slots, JOBS, POLICY, SUBS)

def test_refused_preq_groups_left_uncounted_decide_otherwise(monkeypatch) -> None:
    # The preq groups the walks pass over (above) are the only refusals of this pool
    # read at a rejection: left out of the lists' deferred counts, the rejection
    # reads "no match found".
    run_both(RANK_SLOTS, JOBS, POLICY, SUBS)
    monkeypatch.setattr(HeldLists, "_deferred", lambda self, found: [])
    with pytest.raises(AssertionError):
        run_both(RANK_SLOTS, JOBS, POLICY, SUBS)


def test_own_preq_groups_are_no_refusal() -> None:
    """mid's jobs can take only mid's own slots (whose Rank reads the job and does
    not beat for short jobs): the walk leaves them out, uncounted, and mid's
    rejection reads no refusal by ``PREEMPTION_REQUIREMENTS``, as the reference's."""
    slots = [_rank_slot(n) for n in (0, 3, 6)]  # (all held by mid)
    # (mid's class its own, RequestDisk apart: its walk asks pairs not known yet)
    jobs = [_job(1, 0, "new", 500, 5)] + [_job(3, p, "mid", 600, 5) for p in range(2)]
    _, result = run_both(slots, jobs, POLICY, SUBS)
    assert [r.reason for r in result.rejections] == ["no match found"]


def _free_slot(n: int, cpus: int) -> str:
    """An unclaimed slot of ``cpus`` cores (its entries sort before the held slots'
    by the default pre-job rank, ``1000000 * (RemoteOwner =?= UNDEFINED) - 100000 *
    Cpus``, with fewer than 10 cores, else after them)."""
    return ad_text({
        "Name": f'"free{n}@f{n}"', "Machine": f'"f{n}"', "SlotID": 1,
        "State": '"Unclaimed"', "Activity": '"Idle"', "Cpus": cpus, "Memory": 2048,
        "Disk": 9000 + n, 'Arch': '"X86_64"', "OpSys": '"LINUX"',
        "Requirements": "START", "START": "true", "Rank": "0", "CurrentRank": 0,
        "SlotWeight": "Cpus"})


def test_specialised_verdicts_decide_as_the_reference(monkeypatch) -> None:
    # With no names read off the tree, the verdicts are specialised and kept by the
    # names the specialisations read.
    monkeypatch.setattr(preq_verdicts, "static_reads", lambda expr: None)
    fast, _ = run_both(SLOTS, JOBS, POLICY, SUBS)
    verdicts = fast.mm.lists._held_lists._allowed.__self__._verdicts
    # (the unscoped SubmitterUserPrio is looked up in the slot first: absent there)
    assert list(verdicts) == [(("submitteruserprio",), ("remoteuserprio", "submitteruserprio"))]
    assert len(next(iter(verdicts.values()))) <= 3 * 2


def test_a_verdict_blind_to_the_slots_priority_decides_otherwise(monkeypatch) -> None:
    # Every slot one key: the first holder's verdict stands for all holders.
    monkeypatch.setattr(preq_verdicts, "static_reads", lambda expr: None)
    monkeypatch.setattr(PreqVerdicts, "_slot_numbers", lambda self, names, offer: ())
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY, SUBS)


def test_a_static_verdict_blind_to_the_slots_priority_decides_otherwise(monkeypatch) -> None:
    # The same by the static table: every slot's numbers one key. (The refused
    # groups passed over by their holder's key, ``held_refusals``, ask one verdict
    # per holder, which stays right: off, each shape asks its own.)
    monkeypatch.setattr(HeldRefusals, "refusals", lambda self, *args: None)
    monkeypatch.setattr(PreqVerdicts, "_literal_numbers",
                        lambda self, ad: () if "remoteuserprio" in ad else (
                            self._number(ad, self._static)))
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY, SUBS)


def test_a_list_shared_between_submitters_decides_otherwise(monkeypatch) -> None:
    # One held list per class key whatever the submitter: new's and mid's jobs of
    # one class would share new's list (mid's own slots listed for it, new's
    # verdicts taken for mid's). (With the refused groups passed over, the two
    # submitters' walks differ and the list is made again: refusals off, they do not.)
    monkeypatch.setattr(HeldLists, "_key", lambda self, klass, submitter, signature: klass)
    monkeypatch.setattr(HeldRefusals, "refusals", lambda self, *args: None)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY, SUBS)


def test_refusals_left_uncounted_decide_otherwise(monkeypatch) -> None:
    # A class whose held slots PREEMPTION_REQUIREMENTS refuses is rejected for it:
    # with the refusals not counted, its rejection reads "no match found". (Walked,
    # with the refused groups not passed over: ``held_refusals`` off.)
    monkeypatch.setattr(HeldLists, "_settle", _settle_without_refusals)
    monkeypatch.setattr(HeldRefusals, "refusals", lambda self, *args: None)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY, SUBS)


def test_preq_keys_settle_the_groups_listed_by_rank(monkeypatch) -> None:
    """A group whose slot Rank reads the job (listed by rank for the long jobs) has
    a preq key (``held_refusals.GroupKeys``): its list's verdict of the key settles
    its offers not listed by rank, without the policy asked per shape; the verdict
    taken the other way round decides otherwise."""
    fast, _ = run_both(SLOTS, JOBS, POLICY, SUBS)
    known = [k for held in fast.mm.lists._held_lists._lists.values()
             for _, _, k, _ in held.walk.matched]
    assert any(k is not None and k >= 0 for k in known)  # (old0's Rank-reading slots)
    # (read the other way round by the lists alone: the walks' policy keys as before)
    monkeypatch.setattr(held_lists, "REFUSED", ALLOWED)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY, SUBS)


def test_passed_groups_left_uncounted_decide_otherwise(monkeypatch) -> None:
    # The same refusals, by the groups the walks pass over (``held_refusals``): left
    # out of the lists' deferred counts, the rejection reads "no match found".
    monkeypatch.setattr(HeldLists, "_deferred", lambda self, found: [])
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY, SUBS)


_settle = HeldLists._settle


def _settle_without_refusals(self, found, *args):  # type: ignore[no-untyped-def]
    _settle(self, found, *args)
    found.refused_policy = []


#: policy expressions and the ads' values they read, for ``PreqVerdicts`` alone
EXPRS = [
    "RemoteUserPrio > SubmitterUserPrio * 1.2",
    "MY.RemoteUserPrio > TARGET.SubmitterUserPrio && TARGET.JobPrio >= 0",
    "TARGET.JobPrio > 0 || MY.Owned =?= undefined",
    "ifThenElse(MY.Big, TARGET.JobPrio > 1, RemoteUserPrio >= 700)",
    # (Other bound in the job only, unscoped: no specialisation is made, the match
    # table's evaluation decides every pair where the names are not read off the tree)
    "RemoteUserPrio > Other",
    # (read through eval: no names read off the tree, specialised)
    'eval("RemoteUserPrio") > SubmitterUserPrio',
]
SLOT_VALUES = [{"RemoteUserPrio": p, "Big": b, "Owned": o}
               for p, b, o in itertools.product((700, 700.0, 2000, "x"), (True, False, None),
                                                (1, None))]
JOB_VALUES = [{"SubmitterUserPrio": p, "JobPrio": j, "Other": x}
              for p, j, x in itertools.product((500.0, 600, 1000), (-1, 0, 2), (650, None))]


def _ad(values: dict) -> object:
    return parse_ad(ad_text({k: repr(v).lower() if isinstance(v, bool) else
                             f'"{v}"' if isinstance(v, str) else v
                             for k, v in values.items() if v is not None}))


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("text", EXPRS)
def test_preq_verdicts_equal_the_evaluation_whatever_is_shared(text: str, static: bool,
                                                               monkeypatch) -> None:
    # One table for every (slot, job): each answer must be the full evaluation's,
    # whether it was evaluated or taken from an earlier pair binding alike.
    expr = parse_expr(text)
    counts = EvaluationCount()
    canon: dict = {}

    def number(ad, names):  # type: ignore[no-untyped-def]
        return tuple(canon.setdefault(repr(adeval.attr(ad, n)), len(canon)) for n in names)

    fallbacks = []

    def fallback(class_id, job_ad, offer, signature):  # type: ignore[no-untyped-def]
        fallbacks.append(offer.seq)  # (the match table's evaluation)
        return adeval.as_bool(adeval.eval_expr(expr, offer.ad, job_ad, NOW))

    if not static:
        monkeypatch.setattr(preq_verdicts, "static_reads", lambda expr: None)
    verdicts = PreqVerdicts(expr, number, NOW, counts, fallback)
    slots = [_ad(v) for v in SLOT_VALUES]
    jobs = [_ad(v) for v in JOB_VALUES]
    asked = 0
    for job in jobs:
        mine: dict = {}
        for seq, slot_ad in enumerate(slots):
            offer = SimpleNamespace(ad=slot_ad, seq=seq)  # (what it reads of an offer)
            got = verdicts.allowed(0, job, offer, (), mine)
            assert got == adeval.as_bool(adeval.eval_expr(expr, slot_ad, job, NOW)), (
                text, SLOT_VALUES[seq], JOB_VALUES[jobs.index(job)])
            asked += 1
    # (eval reads a name that is neither read off the tree nor specialised)
    if text == EXPRS[-1] or (text == EXPRS[-2] and not static):
        assert len(fallbacks) == asked and not counts.evaluations
        assert not verdicts._by_static and not verdicts._verdicts
        return
    assert not fallbacks and counts.evaluations < asked  # (shared where reads bind alike)
    # every verdict by one table: the static one where the names were read off the tree
    assert bool(verdicts._by_static) == static
    assert bool(verdicts._verdicts) != static
    if text == EXPRS[0]:
        assert counts.evaluations <= 4 * 3  # (one per distinct pair of priorities)
    if static:
        # (a static miss runs a residual made once per job numbers and the names
        # the slot binds, from the second miss of that key; where none can be made,
        # as for an unscoped name bound in the job alone, it is evaluated in full)
        made = [r for r in verdicts._residuals.values() if r is not preq_verdicts.ONCE]
        assert len(verdicts._residuals) <= counts.evaluations
        if text == EXPRS[0]:
            assert made and None not in made


@pytest.mark.parametrize("text", EXPRS[:5])
def test_static_allowed_equals_the_evaluation(text: str) -> None:
    # ``static_allowed`` (the refusals' way: the job's numbers given, nothing else
    # checked) against the full evaluation, the slots in an order of their own so
    # that other pairs meet a key first (evaluated in full) and later (its residual).
    expr = parse_expr(text)
    canon: dict = {}

    def number(ad, names):  # type: ignore[no-untyped-def]
        return tuple(canon.setdefault(repr(adeval.attr(ad, n)), len(canon)) for n in names)

    verdicts = PreqVerdicts(expr, number, NOW, EvaluationCount(),
                            lambda *args: pytest.fail("no fallback expected"))
    slots = [_ad(v) for v in SLOT_VALUES]
    order = list(range(len(slots)))
    random.Random(7).shuffle(order)
    asked = 0
    for job in reversed([_ad(v) for v in JOB_VALUES]):
        mine = verdicts.job_key(job, {})
        assert mine is not None
        for seq in order:
            offer = SimpleNamespace(ad=slots[seq], seq=seq)
            if verdicts.slot_key(offer) is None:
                continue
            got = verdicts.static_allowed(job, mine, offer)
            assert got == adeval.as_bool(adeval.eval_expr(expr, slots[seq], job, NOW))
            asked += 1
    assert asked == len(slots) * len(JOB_VALUES)
    if text == EXPRS[0]:
        assert any(r is not preq_verdicts.ONCE for r in verdicts._residuals.values())


class _BlindToTheJob(dict):
    """Residuals kept by the names a slot binds alone, not the job's numbers."""

    def get(self, key, default=None):  # type: ignore[no-untyped-def]
        return super().get(key[1], default)

    def __setitem__(self, key, value) -> None:  # type: ignore[no-untyped-def]
        super().__setitem__(key[1], value)


def test_static_residuals_blind_to_the_jobs_numbers_decide_otherwise() -> None:
    # The first job's residual run for every job: its priority stands for all.
    expr = parse_expr(EXPRS[0])
    canon: dict = {}

    def number(ad, names):  # type: ignore[no-untyped-def]
        return tuple(canon.setdefault(repr(adeval.attr(ad, n)), len(canon)) for n in names)

    verdicts = PreqVerdicts(expr, number, NOW, EvaluationCount(),
                            lambda *args: pytest.fail("no fallback expected"))
    verdicts._residuals = _BlindToTheJob()
    wrong = 0
    for job in [_ad(v) for v in JOB_VALUES]:
        mine: dict = {}
        for seq, slot_ad in enumerate([_ad(v) for v in SLOT_VALUES]):
            got = verdicts.allowed(0, job, SimpleNamespace(ad=slot_ad, seq=seq), (), mine)
            wrong += got != adeval.as_bool(adeval.eval_expr(expr, slot_ad, job, NOW))
    assert wrong


@pytest.mark.parametrize(("text", "names"), [
    ("RemoteUserPrio > SubmitterUserPrio * 1.2", ("remoteuserprio", "submitteruserprio")),
    ("MY.A > TARGET.b && -C =?= {D, 1}", ("a", "b", "c", "d", "my", "target")),
    ("ifThenElse(isUndefined(A), B ?: 1, c ? D : E)", ("a", "b", "c", "d", "e")),
    ("true", ()),
    # (roads to a name or a value not read off the tree)
    ('eval("A") > 1', None), ("PARENT.A > 1", None), (".A > 1", None),
    ("A.b > 1", None), ('A["b"] > 1', None), ("[x = A].x > 1", None),
    ("time() > A", None), ("noSuchFunction(A)", None),
])
def test_static_reads_are_the_names_of_the_tree(text: str, names) -> None:
    assert static_reads(parse_expr(text)) == names


#: slots whose RemoteUserPrio is an expression reading Base: their bindings of the
#: static names are alike, what those read is not
DERIVED_SLOTS = [_ad({"Base": b, "Own": 1}) for b in (100, 400, 900)]
for _slot_ad in DERIVED_SLOTS:
    _slot_ad["RemoteUserPrio"] = parse_expr("Base * 2")


def _ask_derived(expr_text: str) -> tuple[PreqVerdicts, list[tuple[bool, bool]]]:
    expr = parse_expr(expr_text)
    canon: dict = {}

    def number(ad, names):  # type: ignore[no-untyped-def]
        return tuple(canon.setdefault(repr(adeval.attr(ad, n)), len(canon)) for n in names)

    verdicts = PreqVerdicts(expr, number, NOW, EvaluationCount(),
                            lambda *args: pytest.fail("no fallback expected"))
    job = _ad({"SubmitterUserPrio": 500.0})
    answers = []
    for seq, slot_ad in enumerate([*DERIVED_SLOTS, _ad({"RemoteUserPrio": 2000})]):
        got = verdicts.allowed(0, job, SimpleNamespace(ad=slot_ad, seq=seq), (), {})
        answers.append((got, adeval.as_bool(adeval.eval_expr(expr, slot_ad, job, NOW))))
    return verdicts, answers


def test_non_literal_bindings_are_specialised() -> None:
    # RemoteUserPrio bound to an expression: the slots take the specialisation (by
    # Base), the literal one the static table.
    verdicts, answers = _ask_derived("RemoteUserPrio > SubmitterUserPrio * 1.2")
    assert all(got == want for got, want in answers)
    assert {want for _, want in answers} == {True, False}
    assert len(verdicts._by_static) == 1 and verdicts._verdicts


def test_static_keys_over_non_literals_decide_otherwise(monkeypatch) -> None:
    # Without the literal test, the three derived slots share one static key (their
    # bindings are one expression), and the first one's verdict stands for all.
    monkeypatch.setattr(PreqVerdicts, "_literal_numbers",
                        lambda self, ad: self._number(ad, self._static))
    _, answers = _ask_derived("RemoteUserPrio > SubmitterUserPrio * 1.2")
    assert any(got != want for got, want in answers)




def _plain_filter(registry, found) -> list:
    """The runs ``_filter`` leaves by the plain rule: those of the available offers
    once more than half of the entries' offers have left, else the runs as they are."""
    runs = [found.by_rank, found.by_prio]
    alive = [[e for e in run if registry[e[held_lists.ENTRY_IDX]].available] for run in runs]
    return alive if 2 * sum(map(len, alive)) < sum(map(len, runs)) else runs


@pytest.mark.parametrize("moved_at_every_call", [False, True])
def test_runs_looked_over_only_when_half_may_have_left(moved_at_every_call: bool) -> None:
    """``HeldLists._filter`` drops the entries of departed offers exactly when the
    plain rule would (more than half of the runs' entries gone), though it looks the
    runs over only when that many held offers may have left since they were last all
    available (``HeldList.whole``: each departure moves the held groups' epoch once);
    a ``whole`` moved on at every call, runs dropped or not, is caught."""
    rng = random.Random(7)
    dropped = differ = 0
    for _ in range(300):
        registry = [SimpleNamespace(available=True) for _ in range(rng.randint(1, 30))]
        held = SimpleNamespace(epoch=rng.randint(0, 5))
        lists = HeldLists.__new__(HeldLists)
        lists._registry, lists._held = registry, held
        seqs = list(range(len(registry)))
        rng.shuffle(seqs)
        cut = rng.randint(0, len(seqs))
        entry = lambda k: (0.0,) * held_lists.ENTRY_IDX + (k, 0, "")  # noqa: E731
        found = held_lists.HeldList(None, [entry(k) for k in seqs[:cut]], [], held.epoch)
        found.by_prio = [entry(k) for k in seqs[cut:]]
        for _ in range(rng.randint(1, 4)):
            for k in rng.sample(range(len(registry)), rng.randint(0, len(registry) // 3)):
                if registry[k].available:
                    registry[k].available = False
                    held.epoch += 1
            held.epoch += rng.randint(0, 2)  # (other changes: a bound, not a count)
            want = _plain_filter(registry, found)
            runs = [found.by_rank, found.by_prio]
            lists._filter(found)
            if moved_at_every_call:
                found.whole = held.epoch
            got = [found.by_rank, found.by_prio]
            differ += got != want
            dropped += got != runs
            assert found.epoch == held.epoch
    if moved_at_every_call:
        assert differ
    else:
        assert not differ and dropped
