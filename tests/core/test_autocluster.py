"""Autoclusters and match classes: the shared-walk build agrees with the plain one,
keys compare expressions by structure (not object identity), and the names a job
class reads are collected."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.autocluster import (
    _Canon,
    build,
    build_reference,
    closure,
    referenced,
    request_names,
)
from condorlite.core.classad import parse_ad
from condorlite.core.classad.parser import parse_expr
from condorlite.core.model import job_from_ad
from condorlite.core.policy import Policy
from tests.core._pool import UID, job

POLICY = Policy(uid_domain=UID)
SIGNIFICANT = frozenset({"requirements", "rank", "requestcpus", "requestmemory"})


def _views(ac):
    return (ac.cluster_of, ac.match_class_of,
            {k: v.id for k, v in ac.representative.items()}, ac.job_names, ac.target_names)


def test_canon_numbers_equal_trees_equally_and_absent_as_zero() -> None:
    canon = _Canon()
    a, b = parse_expr("Memory > 2 * RequestMemory"), parse_expr("Memory > 2 * RequestMemory")
    assert a is not b
    assert canon.number(a) == canon.number(b) == 1
    assert canon.number(parse_expr("Memory > 3 * RequestMemory")) == 2
    assert canon.number(None) == 0
    ad = parse_ad("A = 1\nB = Memory > 2 * RequestMemory")
    assert canon.key(ad, ("a", "b", "c")) == (3, 1, 0)


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
