"""Autoclusters and match classes: the shared-walk build agrees with the plain one,
keys compare expressions by structure (not object identity), and the names a job
class reads are collected."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.ad_decoder import job_from_ad, slot_from_ad
from condorlite.core.classad import parse_ad, parse_ads
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.parser import parse_expr
from condorlite.core.matching.autocluster import (
    build,
    closure,
    closure_union,
    referenced,
    referenced_lower,
    request_names,
    slot_side_names,
)
from condorlite.core.matching.expr_numbers import Canon
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.matching.significant import build_closed
from condorlite.core.model import Job
from condorlite.core.policy import Policy
from tests.core._pool import UID, decoded_pool, decoded_texts, job, slot
from tests.core.matching.autocluster_references import build_reference, build_widening

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

POLICY = Policy(uid_domain=UID)
SIGNIFICANT = frozenset({"requirements", "rank", "requestcpus", "requestmemory"})


def _views(ac):
    return (ac.cluster_of, ac.match_class_of,
            {k: v.id for k, v in ac.representative.items()}, ac.job_names, ac.target_names)


def test_canon_numbers_equal_trees_equally_and_absent_as_zero() -> None:
    canon = Canon()
    a, b = parse_expr("Memory > 2 * RequestMemory"), parse_expr("Memory > 2 * RequestMemory")
    assert a is not b
    assert canon.number(a) == canon.number(b) == 1
    assert canon.number(parse_expr("Memory > 3 * RequestMemory")) == 2
    assert canon.number(None) == 0
    ad = parse_ad("A = 1\nB = Memory > 2 * RequestMemory")
    assert canon.key(ad, ("a", "b", "c")) == (3, 1, 0)


def test_entry_keys_and_shape_keys_compare_bindings_not_objects() -> None:
    """Memoised by entry identity and by the names tuple's identity, yet equal
    bindings key equally across objects, and another names tuple gets its own key."""
    keys = ShapeKeys()
    a = parse_ad('Cpus = 1\nMemory = 2 * 1024\nName = "a"')
    b = parse_ad('Cpus = 1\nMemory = 2 * 1024\nName = "b"')
    c = parse_ad("Cpus = 2\nMemory = 2 * 1024")
    walked = ("cpus", "gpus", "memory")
    first = keys.key(a, walked, ("x",))
    assert first[:2] == (("x",), ("cpus", "memory")) and len(first[2]) == 2
    assert keys.key(b, walked, ("x",)) == first
    assert keys.key(b, tuple(list(walked)), ("x",)) == first  # an equal, other tuple
    assert keys.key(c, walked, ("x",)) != first
    assert keys.key(a, walked, ("x",)) == first  # after c: the memo is per binding
    swapped = keys.key(a, ("memory", "cpus"), ("y",))
    assert swapped == (("y",), ("memory", "cpus"), tuple(reversed(first[2])))
    canon = keys.canon
    assert canon.entry_key(a, ("cpus", "gpus")) == (first[2][0], 0)
    assert canon.entry_key(c, ("cpus", "gpus")) != canon.entry_key(a, ("cpus", "gpus"))


def test_closure_follows_the_ads_own_attributes_and_referenced_lists_names() -> None:
    ad = parse_ad("Requirements = Big && TARGET.Arch == \"X86_64\"\nBig = Mem > 10\nMem = 4")
    reach = closure(ad, ["Requirements"])
    assert reach == {"requirements", "big", "arch", "mem"}
    assert referenced(ad, reach) == {"big", "arch", "mem"}
    assert request_names(parse_ad("RequestCpus = 1\nrequestGPUs = 2\nRequests = 3")) == {
        "requestcpus", "requestgpus", "requests"}


def test_jobs_equal_in_every_reached_binding_share_a_class() -> None:
    jobs = [
        job(1, 0, "alice", index=0, Requirements="Memory > NeedMem", NeedMem=10),
        job(1, 1, "alice", index=1, Requirements="Memory > NeedMem", NeedMem=10, Extra=5),
        job(2, 0, "alice", index=2, Requirements="Memory > NeedMem", NeedMem=20),
        job(3, 0, "bob", index=3, Requirements="Memory > NeedMem", NeedMem=10),
    ]
    ac = build(jobs, SIGNIFICANT, None)
    cls = ac.match_class_of
    # Extra is not reached, so 1.0 and 1.1 are one class; NeedMem differs for 2.0
    assert cls["1.0"] == cls["1.1"] == cls["3.0"] != cls["2.0"]
    assert ac.count == 2 and len(ac.representative) == 2
    assert "needmem" in ac.job_names and "memory" in ac.target_names
    assert _views(ac) == _views(build_reference(jobs, SIGNIFICANT, None))


def test_a_shared_walk_is_not_reused_when_a_reached_binding_differs() -> None:
    """Same start bindings, different binding of a name reached only through them:
    the second job must get its own walk (and class), even after the first."""
    jobs = [
        job(1, 0, "alice", index=0, Requirements="Memory > NeedMem", NeedMem="Base + 1",
            Base=1),
        job(2, 0, "alice", index=1, Requirements="Memory > NeedMem", NeedMem="Base + 1",
            Base=2),
        job(3, 0, "alice", index=2, Requirements="Memory > NeedMem", NeedMem="Other",
            Other=1),
    ]
    ac = build(jobs, SIGNIFICANT, None)
    assert len(set(ac.match_class_of.values())) == 3
    assert {"base", "other"} <= ac.job_names
    assert _views(ac) == _views(build_reference(jobs, SIGNIFICANT, None))


def test_configured_significant_attributes_group_autoclusters_only() -> None:
    jobs = [job(1, 0, "alice", index=0, RequestMemory=1),
            job(2, 0, "alice", index=1, RequestMemory=2)]
    ac = build(jobs, SIGNIFICANT, ("RequestCpus", "requestcpus"))
    assert ac.cluster_of["1.0"] == ac.cluster_of["2.0"]
    assert ac.match_class_of["1.0"] != ac.match_class_of["2.0"]
    assert _views(ac) == _views(build_reference(jobs, SIGNIFICANT, ("RequestCpus",)))


VALUES = st.sampled_from(["1", "2", "X + 1", "Y", "Memory > Y", "undefined"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(VALUES, VALUES, VALUES, st.booleans()), min_size=1, max_size=12))
def test_build_agrees_with_the_plain_build(rows) -> None:
    """Random bindings of a small web of names (Requirements -> X -> Y ...), with ads
    parsed separately so no expression objects are shared between jobs."""
    jobs = []
    for i, (req, x, y, custom) in enumerate(rows):
        text = (f"ClusterId = {i}\nProcId = 0\nOwner = \"u{i % 2}\"\nJobStatus = 1\n"
                f"QDate = {i % 3}\nRequirements = {req}\nX = {x}\nY = {y}\n")
        if custom:
            text += "RequestGPUs = X\n"
        jobs.append(job_from_ad(parse_ad(text), POLICY, i))
    configured = ("Y",) if len(rows) % 2 else None
    assert _views(build(jobs, SIGNIFICANT, configured)) == _views(
        build_reference(jobs, SIGNIFICANT, configured))


# -- build_closed: the widening loop's fixed point, computed directly -------------------

def _widening(slots, idle, exprs, configured, rounds: int | None = 4):
    """The loop of ``negotiator.Cycle._autoclusters`` (``rounds`` None: until closed)."""
    significant = slot_side_names(slots, exprs)
    requests: dict[str, tuple[str, ...]] = {}
    done = 0
    while rounds is None or done < rounds:
        done += 1
        ac = build(idle, significant, configured, requests)
        wider = (significant | ac.job_names | slot_side_names(slots, ())
                 | closure_union(slots, ac.job_names))
        if wider <= significant:
            return ac
        significant = wider
    return ac


def _every(ac):
    """Everything an Autoclusters holds (the per-job maps as sets: ``build`` fills
    them in queue order, ``build_closed`` in input order), the order of classes too."""
    return (ac.significant, ac.configured, sorted(ac.cluster_of.items()),
            sorted(ac.match_class_of.items()),
            [(k, v.id) for k, v in ac.representative.items()],
            ac.job_names, ac.target_names, ac.count)


def _exprs(policy: Policy) -> tuple:
    return PolicyExprs.from_policy(policy).all()


def _genpool(tmp_path, spec, policy, shared: bool):
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, shared)
    return slots, [j for j in jobs if j.idle]


GENPOOL_POLICIES = {
    "default": {},
    "submitter-dependent": dict(
        preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.5",
        negotiator_pre_job_rank="TARGET.SubmitterUserPrio * Cpus + TARGET.RequestCpus",
        negotiator_post_job_rank="SubmitterUserResourcesInUse - Memory / 1024"),
    "configured-significant": dict(significant_attributes=("RequestCpus", "Owner")),
    "configured-cluster": dict(significant_attributes=("ClusterId",)),
}


@pytest.mark.parametrize("name", sorted(GENPOOL_POLICIES))
@pytest.mark.parametrize("shared", [True, False])
def test_build_closed_equals_the_widening_loop_on_generated_pools(tmp_path, name, shared):
    policy = replace(Policy(uid_domain=UID), **GENPOOL_POLICIES[name])
    spec = genpool.PoolSpec(slots=60, jobs=400, submitters=6, autoclusters=25, seed=3,
                            claimed_fraction=0.3)
    slots, idle = _genpool(tmp_path, spec, policy, shared)
    configured = policy.significant_attributes
    ac = build_closed(slots, idle, _exprs(policy), configured)
    assert _every(ac) == _every(_widening(slots, idle, _exprs(policy), configured))
    assert len(ac.representative) > 5 and len(ac.match_class_of) == len(idle)
    assert {"requirements", "requestcpus", "memory"} <= ac.significant
    if configured == ("ClusterId",):
        assert ac.count == len({j.cluster for j in idle})


def test_build_closed_follows_job_attributes_back_into_slot_attributes() -> None:
    """Slot Start reads the job's NeedMem, whose binding reads the slot's Scale, whose
    slot binding reads the job's Factor: all of them are significant, and jobs that
    differ only in Factor are different classes."""
    slots = [slot(f"slot{i}@m", index=i, Start="TARGET.NeedMem < Memory", Scale="Factor * 2")
             for i in range(3)]
    idle = [job(1, 0, "alice", index=0, NeedMem="Scale + 1", Factor=1),
            job(1, 1, "alice", index=1, NeedMem="Scale + 1", Factor=2),
            job(2, 0, "alice", index=2, NeedMem="Scale + 1", Factor=1, Unread=7)]
    exprs = _exprs(POLICY)
    ac = build_closed(slots, idle, exprs, None)
    assert {"needmem", "scale", "factor"} <= ac.significant
    assert "unread" not in ac.significant
    assert ac.match_class_of == {"1.0": 1, "1.1": 2, "2.0": 1}
    assert ac.representative[1].id == "1.0"
    assert _every(ac) == _every(_widening(slots, idle, exprs, None))


def test_build_closed_reaches_the_fixed_point_the_capped_loop_can_miss() -> None:
    """A chain that alternates between two machine types and the jobs gains one link
    per round of the loop; the loop stops after four rounds, build_closed does not."""
    links = 7
    kinds = [dict(Start="TARGET.J0 > 0"), {}]
    for i in range(links):  # slot type i % 2 binds S{i} = J{i+1}; jobs bind J{i} = S{i}
        kinds[i % 2][f"S{i}"] = f"TARGET.J{i + 1}"
    slots = [slot(f"slot{i}@m{i % 2}", index=i, **kinds[i % 2]) for i in range(4)]
    chain = {f"J{i}": f"S{i}" for i in range(links)}
    idle = [job(1, p, "alice", index=p, **chain, **{f"J{links}": p % 2}) for p in range(3)]
    exprs = _exprs(POLICY)
    ac = build_closed(slots, idle, exprs, None)
    assert f"j{links}" in ac.significant
    assert ac.match_class_of == {"1.0": 1, "1.1": 2, "1.2": 1}
    assert _every(ac) == _every(_widening(slots, idle, exprs, None, rounds=None))
    assert _every(ac) == _every(build_widening(slots, idle, exprs, None))
    assert f"j{links}" not in _widening(slots, idle, exprs, None).significant


def test_build_closed_without_slots_or_without_jobs() -> None:
    exprs = _exprs(POLICY)
    slots = [slot("slot1@m", Start="TARGET.NeedMem < Memory")]
    idle = [job(1, 0, "alice", NeedMem=5, Requirements="NeedMem > Other", Other=1),
            job(2, 0, "bob", index=1, NeedMem=5, Requirements="NeedMem > 2")]
    for s, j in (([], idle), (slots, []), ([], [])):
        ac = build_closed(s, j, exprs, None)
        assert _every(ac) == _every(_widening(s, j, exprs, None))
    no_slots = build_closed([], idle, exprs, None)
    # S is closed under the jobs' bindings with or without slots: the jobs' own
    # Requirements read NeedMem and Other, so both are significant for every job
    assert {"needmem", "other"} <= no_slots.significant
    assert "other" in no_slots.job_names and len(no_slots.representative) == 2
    with_slot = build_closed(slots, idle, exprs, None)
    assert with_slot.match_class_of == no_slots.match_class_of
    no_jobs = build_closed(slots, [], exprs, ("Owner",))
    assert {"start", "needmem"} <= no_jobs.significant and no_jobs.count == 0


def test_build_closed_reads_ads_that_are_not_classad_lite() -> None:
    """A plain mapping ad (lower-case names) gets the same answer through new tables."""
    def plain(text: str) -> dict:
        return {k: v for k, (_, v) in parse_ad(text)._attrs.items()}

    ads = [plain("Requirements = NeedMem > 1\nNeedMem = 2\nRequestCpus = 1"),
           plain("Requirements = NeedMem > 1\nNeedMem = 3\nRequestCpus = 1"),
           plain("Requirements = NeedMem > 1\nNeedMem = 2\nRequestCpus = 1\nX = 1")]
    idle = [Job(f"{i}.0", i, 0, i, ad, 1, "alice@example.org", 0, 0) for i, ad in enumerate(ads)]
    slots = [slot("slot1@m", Start="TARGET.RequestCpus <= Cpus")]
    exprs = _exprs(POLICY)
    ac = build_closed(slots, idle, exprs, ("RequestCpus",))
    assert ac.match_class_of == {"0.0": 1, "1.0": 2, "2.0": 1} and ac.count == 1
    assert _every(ac) == _every(_widening(slots, idle, exprs, ("RequestCpus",)))
    plain_slots = [replace(s, ad={k: v for k, (_, v) in s.ad._attrs.items()}) for s in slots]
    assert closure_union(plain_slots, ["Requirements"]) == closure_union(
        slots, ["Requirements"]) >= {"start", "requestcpus", "cpus"}
    assert _every(build_closed(plain_slots, idle, exprs, None)) == _every(
        _widening(plain_slots, idle, exprs, None))


WEB = ["A", "B", "Extra", "NeedMem", "Memory", "Start", "RequestFoo"]
WEB_EXPRS = st.sampled_from([
    "1", "2", "A + 1", "TARGET.B > 2", "MY.Extra", "NeedMem <= Memory", "undefined",
    "Start && A", "TARGET.RequestFoo =?= undefined", "SubmitterUserPrio > B",
    "ifThenElse(Extra > 1, TARGET.NeedMem, 0)", "RemoteUserPrio + A"])
BINDINGS = st.dictionaries(st.sampled_from(WEB), WEB_EXPRS, max_size=4)


def _text(attrs: dict[str, str]) -> str:
    return "".join(f"{k} = {v}\n" for k, v in attrs.items())


@settings(max_examples=60, deadline=None)
@given(slot_kinds=st.lists(BINDINGS, min_size=1, max_size=3),
       job_kinds=st.lists(BINDINGS, min_size=1, max_size=3),
       picks=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=14),
       shared=st.booleans(), variant=st.integers(0, 3))
def test_build_closed_agrees_with_the_loop_on_random_webs(slot_kinds, job_kinds, picks,
                                                           shared, variant) -> None:
    """Random bindings of a small web of names on both sides (job names leading into
    slot names and back, Submitter* policy names, a Request* name that reads others),
    with and without shared expression objects and SIGNIFICANT_ATTRIBUTES."""
    policy = replace(POLICY, **[
        {}, dict(significant_attributes=("A", "Owner")),
        dict(preemption_requirements="SubmitterUserPrio > Extra",
             negotiator_pre_job_rank="TARGET.A + B"),
        dict(significant_attributes=("NoSuchName",))][variant])
    slot_texts, job_texts = [], []
    for i, (s_kind, j_kind) in enumerate(picks):
        s_attrs = {"Name": f'"slot{i}@m{s_kind}"', "Machine": f'"m{s_kind}"',
                   "State": '"Unclaimed"', "Activity": '"Idle"', "Cpus": "1",
                   "Memory": "2048", "Requirements": "Start", "Start": "true"}
        s_attrs.update(slot_kinds[s_kind % len(slot_kinds)])
        slot_texts.append(_text(s_attrs))
        j_attrs = {"ClusterId": str(i // 3), "ProcId": str(i % 3), "Owner": f'"u{i % 2}"',
                   "JobStatus": "1", "QDate": str(i % 4),
                   "Requirements": "TARGET.Memory >= NeedMem"}
        j_attrs.update(job_kinds[j_kind % len(job_kinds)])
        job_texts.append(_text(j_attrs))
    slots, idle = decoded_texts(slot_texts, job_texts, policy, shared)
    configured = policy.significant_attributes
    exprs = _exprs(policy)
    assert _every(build_closed(slots, idle, exprs, configured)) == _every(
        _widening(slots, idle, exprs, configured, rounds=None))


@settings(max_examples=40, deadline=None)
@given(kinds=st.lists(BINDINGS, min_size=1, max_size=4),
       picks=st.lists(st.integers(0, 3), min_size=0, max_size=10),
       roots=st.sets(st.sampled_from([*WEB, "Requirements", "Nothing"]), max_size=3))
def test_closure_union_is_the_union_of_each_slots_closure(kinds, picks, roots) -> None:
    slot_ads = list(parse_ads("\n".join(
        _text({"Name": f'"s{i}"', **kinds[k % len(kinds)]}) for i, k in enumerate(picks))))
    slots = [slot_from_ad(a, POLICY, i) for i, a in enumerate(slot_ads)]
    plain: set[str] = set()
    for s in slots:
        plain |= closure(s.ad, roots)
    assert closure_union(slots, roots) == plain


def test_referenced_reads_the_bindings_of_the_names_asked():
    ad = parse_ad("NeedMem = Scale + MY.Base\nScale = 3\nMixedCase = TARGET.Foo\nLone = Bar")
    assert referenced(ad, ["needmem", "scale", "absent"]) == {"scale", "base"}
    # a name asked in another case is found as the ad's lookup finds it
    assert referenced(ad, ["MixedCase"]) == {"foo"}
    assert referenced(ad, ["lone", "mixedcase"]) == {"bar", "foo"}


def test_referenced_lower_is_referenced_of_lower_case_names():
    text = "NeedMem = Scale + MY.Base\nScale = 3\nMixedCase = TARGET.Foo\nLone = Bar"
    asked = ["needmem", "scale", "absent", "mixedcase", "lone", "cpus", "rank"]
    class Other(ClassAd):  # not ClassAd-lite: read through ``adeval.attr``
        __slots__ = ()

    for ad in (parse_ad(text), Other(parse_ad(text))):
        assert referenced_lower(ad, asked) == referenced(ad, asked)
        for name in asked:
            assert referenced_lower(ad, (name,)) == referenced(ad, [name])
    assert referenced_lower(parse_ad(text), ("scale", "absent")) == set()
