"""Rank columns (``core/matching/rank_columns.py``): names only jobs' Rank reads do not
split slot shapes, and a class whose Rank reads them takes its job rank per offer.

Each case runs the optimised cycle and the plain reference cycle
(``tests/core/reference``) and requires the same outcome (``test_equivalence``'s
fingerprint), and checks that the column was (or was not) used, so that the case
tests what it says. The traps: a job that binds the name its Rank reads itself (MY
before TARGET), a slot START that reads the name (the walk must keep those slots
apart), a job Requirements that reads the job's own Rank, a slot Requirements that
reads ``TARGET.Rank``, a Rank that reads a carved resource too (partitionable slots:
the column is read again per state), a Rank that reads a ``Submitter*`` name, a slot
attribute bound to an expression, and held slots preempted by rank.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core import adeval
from condorlite.core.classad import parse_ad
from condorlite.core.matching.rank_columns import (
    RankColumn,
    rank_only_names,
    rank_reach,
    slot_spelled,
)
from condorlite.core.model import Submitter
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from tests.core._pool import ad, user
from tests.core.matching._against_reference import ad_text, run_both
from tests.core.negotiation.test_equivalence import _fingerprint
from tests.core.negotiation.test_equivalence_realistic import PREEMPTION, _pool
from tests.core.reference import run_reference_cycle

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

NOW = float(genpool.BASE_TIME)
POLICY = Policy(uid_domain="example.org")


# -- the names ------------------------------------------------------------------------


def test_rank_only_names_are_what_rank_alone_reads():
    rank = [frozenset({"kflops", "mips"}), frozenset({"loadavg"})]
    other = [frozenset({"memory", "mips"}), frozenset({"arch"})]
    assert rank_only_names(rank, other, {"memory"}, frozenset()) == {"kflops", "loadavg"}
    # unknown bindings, or something that reads a job's Rank: nothing is rank-only
    assert rank_only_names(rank, other, (), None) == frozenset()
    assert rank_only_names(rank, other, (), frozenset({"rank"})) == frozenset()
    # excluded names and Requirements / Rank themselves never are
    assert rank_only_names([frozenset({"rank", "cpus", "x"})], [], {"cpus"},
                           frozenset()) == {"x"}


def test_rank_reach_follows_the_jobs_own_bindings():
    job = ad(Rank="W * TARGET.KFlops", W="V + 1", V="TARGET.Mips")
    assert rank_reach(job) == {"w", "kflops", "v", "mips"}
    assert rank_reach(ad(Owner='"a"')) == frozenset()


@pytest.mark.parametrize(("a", "b", "same"), [
    ("KFlops", "TARGET.KFlops", True),
    ("kflops", "target.KFLOPS", True),
    ("-LoadAvg", "-(TARGET.LoadAvg)", True),
    ("Mips ?: 0 + (KFlops > 5 ? 1 : 2)", "TARGET.Mips ?: 0 + (TARGET.KFlops > 5 ? 1 : 2)",
     True),
    ("KFlops * 1", "KFlops * 1.0", False),  # (an integer and a real literal)
    ("KFlops * 1", "KFlops * true", False),
    ("KFlops", "MY.KFlops", False),
    ("KFlops", "TARGET.Mips", False),
])
def test_ranks_spelled_as_they_read_the_slot(a, b, same):
    job = ad(Owner='"a"')
    spelled = [slot_spelled(adeval.attr(ad(Rank=rank), "rank"), job) for rank in (a, b)]
    assert (spelled[0] == spelled[1]) is same


def test_a_name_the_job_binds_or_a_call_is_kept_as_written():
    own = ad(Rank="KFlops", KFlops=5)
    bound = slot_spelled(adeval.attr(own, "rank"), own)
    free = slot_spelled(adeval.attr(ad(Rank="TARGET.KFlops"), "rank"), ad(Owner='"a"'))
    assert bound != free  # (the job's own KFlops is read first)
    # (special names are never the slot's; calls, lists and selections may read
    # names in another scope: no spelling)
    assert slot_spelled(adeval.attr(ad(Rank="CurrentTime"), "rank"), ad(Owner='"a"')) == \
        adeval.attr(ad(Rank="currenttime"), "rank")
    for rank in ("max({KFlops, 1})", "{KFlops}[0]", "[a = KFlops].a", "eval(\"KFlops\")"):
        assert slot_spelled(adeval.attr(ad(Rank=rank), "rank"), ad(Owner='"a"')) is None


def test_ranks_of_one_meaning_share_a_column():
    """``Rank = KFlops`` and ``Rank = TARGET.KFlops`` classes read one column (one
    value per slot for both); a job that binds ``KFlops`` keeps its own."""
    slots = [_slot_text(i) for i in range(30)]
    ranks = [dict(Rank="TARGET.KFlops"), dict(Rank="KFlops"), dict(Rank="kflops + 0"),
             dict(Rank="TARGET.KFlops + 0"), dict(Rank="KFlops", KFlops=5)]
    fast, _ = _run(slots, _jobs(ranks, per=3))
    columns = {id(c): c for c in fast.mm.columns._of_class.values() if c is not None}
    assert len(columns) == 3


# -- whole cycles against the reference -----------------------------------------------


def _slot_text(i: int, **extra: object) -> str:
    attrs = dict(Name=f'"slot{i}@m{i}"', Machine=f'"m{i}"', State='"Unclaimed"',
                 Activity='"Idle"', Cpus=1, Memory=2048 + 512 * (i % 3), Disk=100000,
                 Arch='"X86_64"', OpSys='"LINUX"', Requirements="START", START="true",
                 Rank="0.0", CurrentRank="0.0", SlotWeight="Cpus",
                 KFlops=1000 + (i * 7919) % 997, Mips=100 + (i * 31) % 89,
                 LoadAvg=f"{(i * 13) % 17 / 10!r}")
    attrs.update(extra)
    return ad_text(attrs)


def _job_text(cluster: int, proc: int, owner: str, **extra: object) -> str:
    attrs = dict(ClusterId=cluster, ProcId=proc, Owner=f'"{owner}"', JobStatus=1, JobPrio=0,
                 QDate=1000 + cluster, RequestCpus=1, RequestMemory=1024, RequestDisk=1000,
                 Requirements='(TARGET.Arch == "X86_64") && (TARGET.Memory >= RequestMemory)')
    attrs.update(extra)
    return ad_text(attrs)


def _jobs(ranks: list[dict[str, object]], per: int = 4) -> list[str]:
    """``per`` jobs of each rank variant, the variants spread over three owners."""
    out = []
    for c, extra in enumerate(ranks, 1):
        for p in range(per):
            out.append(_job_text(c, p, ("alice", "bob", "carol")[c % 3], **extra))
    return out


def _run(slot_texts: list[str], job_texts: list[str], policy: Policy = POLICY,
         subs: dict[str, Submitter] | None = None):
    return run_both(slot_texts, job_texts, policy, subs)


RANKS = [dict(Rank="TARGET.KFlops"), dict(Rank="KFlops"), dict(Rank="Mips"),
         dict(Rank="-LoadAvg"), dict(Rank="TARGET.KFlops + 0"), {}]


def test_unique_rank_names_collapse_shapes_and_keep_the_order():
    slots = [_slot_text(i) for i in range(40)]
    fast, result = _run(slots, _jobs(RANKS, per=3))
    assert fast.mm.rank_names >= {"kflops", "mips", "loadavg"}
    # every slot differs in KFlops, Mips and LoadAvg, yet only Memory splits shapes
    assert fast.mm.shape_count <= 3
    # NEGOTIATOR_PRE_JOB_RANK prefers the least Memory; among those slots, the best
    # KFlops went to a job ranking on KFlops
    best = max(range(0, 40, 3), key=lambda i: 1000 + (i * 7919) % 997)
    assert any(m.slot == f"slot{best}@m{best}" for m in result.matches)


def test_a_job_that_binds_the_name_reads_its_own():
    ranks = [dict(Rank="KFlops", KFlops=5), dict(Rank="KFlops"), dict(Rank="MY.KFlops * 0 + Mips")]
    _run([_slot_text(i) for i in range(20)], _jobs(ranks, per=6))


def test_a_start_that_reads_the_name_keeps_slots_apart():
    slots = [_slot_text(i, START="KFlops > 1300" if i % 2 else "true") for i in range(30)]
    fast, _ = _run(slots, _jobs(RANKS, per=4))
    assert "kflops" in fast.mm.rank_names  # still rank-only on the job side
    assert fast.mm.shape_count > 3  # the START's slots are split by their KFlops


def test_requirements_that_read_the_jobs_rank_make_its_names_matter():
    ranks = [dict(Rank="TARGET.KFlops", Requirements="MY.Rank > 1400 && TARGET.Memory >= 1024"),
             dict(Rank="Mips")]
    fast, _ = _run([_slot_text(i) for i in range(30)], _jobs(ranks, per=5))
    # (a job binding that reads ``rank`` turns columns off for the cycle: the rule
    # does not tell a job's own Requirements from a slot's TARGET.Rank)
    assert fast.mm.rank_names == frozenset()


def test_a_slot_that_reads_target_rank_turns_columns_off():
    slots = [_slot_text(i, START="TARGET.Rank > 1300 || TARGET.Rank == 0") for i in range(30)]
    fast, _ = _run(slots, _jobs(RANKS, per=4))
    assert fast.mm.rank_names == frozenset()


def test_a_slot_attribute_bound_to_an_expression():
    slots = [_slot_text(i, KFlops=f"Mips * {i % 5 + 1}") for i in range(30)]
    _run(slots, _jobs(RANKS, per=4))


def test_a_rank_that_reads_a_submitter_name_gets_no_column():
    ranks = [dict(Rank="TARGET.KFlops * SubmitterUserPrio"), dict(Rank="TARGET.KFlops"),
             dict(Rank="Mips")]
    fast, _ = _run([_slot_text(i) for i in range(20)], _jobs(ranks, per=5))
    # the KFlops a Submitter* rank reads splits shapes again; Mips alone is rank-only
    assert fast.mm.rank_names == {"mips"}
    job_ads = {cid: rep.ad for cid, rep in fast.ac.representative.items()}
    with_column = {cid for cid, a in job_ads.items()
                   if fast.mm.columns.of_class(cid, a) is not None}
    assert with_column and len(with_column) < len(job_ads)


def _pslot_text(i: int) -> str:
    return _slot_text(i, Name=f'"slot1@p{i}"', Machine=f'"p{i}"', PartitionableSlot="true",
                      SlotType='"Partitionable"', Cpus=8, Memory=16384, Disk=800000)


def test_partitionable_slots_read_the_column_per_carved_state():
    ranks = [dict(Rank="TARGET.Memory + TARGET.KFlops / 10000.0"), dict(Rank="KFlops"),
             dict(Rank="Mips", RequestMemory=3000), dict(Rank="-LoadAvg", RequestCpus=2)]
    slots = [_pslot_text(i) for i in range(8)] + [_slot_text(i) for i in range(8, 14)]
    # (no PRE_JOB_RANK: its -Memory would order the carved states before the Rank does)
    policy = Policy(uid_domain="example.org", negotiator_pre_job_rank="0")
    fast, result = _run(slots, _jobs(ranks, per=10), policy)
    assert "kflops" in fast.mm.rank_names and "memory" not in fast.mm.rank_names
    assert sum(1 for m in result.matches if m.partitionable) > 8  # carved repeatedly


def test_held_slots_preempted_by_rank_with_columns():
    held = [_slot_text(i, State='"Claimed"', Activity='"Busy"', RemoteUser='"dave@example.org"',
                       RemoteOwner='"dave@example.org"', Rank="TARGET.JobPrio",
                       CurrentRank="0.0") for i in range(10)]
    free = [_slot_text(i) for i in range(10, 16)]
    ranks = [dict(Rank="KFlops", JobPrio=5), dict(Rank="Mips"), dict(Rank="-LoadAvg", JobPrio=1)]
    subs = {user(n): Submitter(user(n), eup=500.0 * (1 + i), usage=0.0)
            for i, n in enumerate(("alice", "bob", "carol", "dave"))}
    subs[user("dave")] = Submitter(user("dave"), eup=500.0, usage=10.0)
    _, result = _run(held + free, [t.replace('"alice"', '"alice@example.org"')
                                      .replace('"bob"', '"bob@example.org"')
                                      .replace('"carol"', '"carol@example.org"')
                                      for t in _jobs(ranks, per=8)], subs=subs)
    assert any(m.reason == "rank" for m in result.matches)


# -- realistic pools where ranks are the only unique reads ------------------------------

RANKS_ONLY = dict(realistic=True, unique=True, rank_fraction=0.65, claimed_fraction=0.3,
                  preemption_requirements=PREEMPTION)


@pytest.mark.parametrize("fraction", [0.0, 1.0, 0.5], ids=["static", "partitionable", "half"])
def test_realistic_pools_ranking_on_unique_numbers(tmp_path, fraction):
    spec = genpool.PoolSpec(slots=80 if fraction else 150, jobs=300, submitters=8,
                            autoclusters=40, seed=7, partitionable_fraction=fraction,
                            **RANKS_ONLY)
    slots, jobs, subs, policy = _pool(tmp_path, spec)
    fast = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
    fast.run()
    result = fast.result()
    assert fast.mm.rank_names & {"kflops", "mips", "loadavg"}
    assert _fingerprint(result) == _fingerprint(
        run_reference_cycle(slots, jobs, subs, policy, NOW))
    assert result.matches


def test_a_column_is_read_again_after_its_offer_is_carved():
    """alice's list reads the memory rank of every partitionable slot whole; bob's
    two jobs then carve the two best-KFlops slots to about 8 GB (a turn's list
    offers a slot once); carol's list, of alice's column, must see the carved states
    (the values kept from alice's list would send her job to the best-KFlops slot
    instead of the whole slot with the best KFlops)."""
    memory_rank = "TARGET.Memory + TARGET.KFlops / 10000.0"
    slots = [_pslot_text(i) for i in range(4)]  # KFlops 1000, 1940, 1883, 1826
    jobs = [_job_text(1, 0, "alice@example.org", Rank=memory_rank, RequestMemory=100),
            _job_text(2, 0, "bob@example.org", Rank="KFlops", RequestMemory=8000),
            _job_text(2, 1, "bob@example.org", Rank="KFlops", RequestMemory=8000),
            _job_text(3, 0, "carol@example.org", Rank=memory_rank, RequestMemory=100)]
    subs = {user(n): Submitter(user(n), eup=500.0 * (1 + i), usage=0.0)
            for i, n in enumerate(("alice", "bob", "carol"))}
    policy = Policy(uid_domain="example.org", negotiator_pre_job_rank="0")
    _, result = _run(slots, jobs, policy, subs)
    by_job = {m.job: m.slot for m in result.matches}
    assert by_job["1.0"] == by_job["2.0"] == "slot1@p1"
    assert by_job["2.1"] == "slot1@p2"
    assert by_job["3.0"] == "slot1@p3"


def test_a_slot_number_bound_to_a_carved_resource_is_read_per_state():
    """KFlops is rank-only, but each partitionable slot binds it to ``Memory + i``:
    the column must read it again in every carved state, not once per slot."""
    slots = [_pslot_text(i).replace(f"KFlops = {1000 + (i * 7919) % 997}",
                                    f"KFlops = Memory + {i}") for i in range(4)]
    assert all("KFlops = Memory" in text for text in slots)
    jobs = [_job_text(1, 0, "alice@example.org", Rank="KFlops", RequestMemory=100),
            _job_text(2, 0, "bob@example.org", Rank="KFlops", RequestMemory=8000),
            _job_text(2, 1, "bob@example.org", Rank="KFlops", RequestMemory=8000),
            _job_text(3, 0, "carol@example.org", Rank="KFlops", RequestMemory=100)]
    subs = {user(n): Submitter(user(n), eup=500.0 * (1 + i), usage=0.0)
            for i, n in enumerate(("alice", "bob", "carol"))}
    policy = Policy(uid_domain="example.org", negotiator_pre_job_rank="0")
    fast, result = _run(slots, jobs, policy, subs)
    assert "kflops" in fast.mm.rank_names
    by_job = {m.job: m.slot for m in result.matches}
    assert by_job == {"1.0": "slot1@p3", "2.0": "slot1@p2", "2.1": "slot1@p1",
                      "3.0": "slot1@p0"}


# -- a column's values by the residual of its layout -----------------------------------

_RANKS = ["KFlops", "-LoadAvg", "TARGET.Mips * 2 + KFlops", "Scale * TARGET.KFlops",
          'ifThenElse(isUndefined(TARGET.Mips), 7, TARGET.Mips) + size(string(KFlops))',
          "real(TARGET.KFlops) / (LoadAvg + 1)", "time() - TARGET.KFlops"]
_LITERALS = st.one_of(
    st.integers(-5, 5), st.sampled_from(["0.0", "-0.0", "1.5", "2.5e300", "true", "false",
                                         '"x"', '""', "undefined", "error"]))


class _Counts:
    evaluations = 0


class _Offer:
    """What ``RankColumn.value`` reads of an offer."""

    def __init__(self, seq: int, ad) -> None:
        self.seq, self.version, self.state_ad, self.ad = seq, 1, ad, ad


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(_RANKS),
       st.lists(st.dictionaries(st.sampled_from(["KFlops", "Mips", "LoadAvg"]), _LITERALS),
                min_size=1, max_size=6))
def test_a_column_by_its_layouts_residual_equals_the_full_evaluation(rank, bindings):
    """Slots that bind the names a Rank reaches to literals of any type, or not at
    all, get the full evaluation's ``as_float or 0.0`` from the column's residuals
    (made once per layout, run per slot), one evaluation counted per slot."""
    job = parse_ad(f"Rank = {rank}\nScale = 3")
    counts = _Counts()
    column = RankColumn(job, NOW, counts, rank_reach(job), frozenset({"cpus", "memory"}))
    for seq, binding in enumerate(bindings):
        slot = parse_ad("\n".join(["Cpus = 1", *(f"{k} = {v}" for k, v in binding.items())]))
        want = adeval.as_float(adeval.eval_attr(job, "Rank", slot, NOW)) or 0.0
        got = column.value(_Offer(seq, slot))
        assert got == want or (math.isnan(got) and math.isnan(want))
        assert column.value(_Offer(seq, slot)) is got  # kept for every version
    assert counts.evaluations == len(bindings)
    assert column.negated() == _negated_of(column)
    assert column._programs, "the values came from residuals"


def _negated_of(column: RankColumn) -> dict[int, float]:
    """What ``RankColumn.negated`` must hold: minus each value kept for every version."""
    return {seq: -value for seq, (version, value) in column.kept().items()
            if version is None}


_STATES = st.one_of(_LITERALS, st.sampled_from(["Cpus * 2", "Mips + 1", "absent"]))


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["KFlops", "-KFlops", "KFlops + TARGET.Mips", "Cpus + KFlops"]),
       st.lists(st.tuples(_STATES, st.booleans()), min_size=1, max_size=8))
def test_a_statics_offers_in_one_loop_as_one_at_a_time(rank, offers):
    """``all_same_in_every_state`` gives what ``all(same_in_every_state(...))`` gives,
    stopping at the same offer, with the same values kept (versions included) and
    the same evaluations counted: offers binding the name to literals of any type,
    to an expression, or not at all, some with a value already kept (a version
    current or stale) before the call; a Rank reaching a carved name is never the
    same in every state."""
    job = parse_ad(f"Rank = {rank}")
    made = []
    for seq, (binding, known) in enumerate(offers):
        text = "Cpus = 1" if binding == "absent" else f"Cpus = 1\nKFlops = {binding}"
        made.append((_Offer(seq, parse_ad(text)), known))
    columns, answers = [], []
    for batch in (False, True):
        counts = _Counts()
        column = RankColumn(job, NOW, counts, rank_reach(job), frozenset({"cpus", "memory"}))
        for offer, known in made:
            offer.version = 1
            if known:  # (a value kept before: current, or from an earlier version)
                column.value(offer)
        for offer, _ in made:
            offer.version = 1 + (offer.seq % 2)
        offers_of = [offer for offer, _ in made]
        answers.append(column.all_same_in_every_state(offers_of) if batch else
                       all(column.same_in_every_state(offer) for offer in offers_of))
        columns.append((dict(column.kept()), counts.evaluations))
        assert column.negated() == _negated_of(column)
    assert answers[0] == answers[1]
    assert columns[0] == columns[1]  # (``as_float`` makes no NaN: plain equality)
