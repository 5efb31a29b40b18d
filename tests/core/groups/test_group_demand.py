"""``group_cycle.demand_of``: weighted running + idle per submitter, against a reference
written straight from the module doc with ``job_weight`` (floats summed in job order)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.model import Claim, Submitter
from condorlite.core.negotiation.group_cycle import demand_of, job_weight
from condorlite.core.policy import Policy
from tests.core._pool import UID, job

CPUS = ["1", "4", "0", "-2", "2.5", "0.1", "-0.5", "true", "false", '"8"', "undefined",
        "error", "RequestMemory / 1024", "{1, 2}", "1e300"]


def _reference(jobs, submitters, claims, policy):
    held = {c.job for c in claims if c.job}
    out = {name: s.usage for name, s in submitters.items() if "@" in name}
    for j in jobs:
        if j.idle and j.id not in held:
            out[j.submitter] = out.get(j.submitter, 0.0) + job_weight(j, policy)
    return {name: out[name] for name in sorted(out) if out[name] > 0}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["alice", "bob", "carol"]),
                          st.sampled_from(CPUS), st.sampled_from([1, 1, 2, 5])),
                max_size=25),
       st.booleans(), st.sets(st.integers(0, 24), max_size=5))
def test_demand_is_the_sum_of_the_reference_weights(specs, weighted, held):
    policy = Policy(uid_domain=UID, negotiator_use_slot_weights=weighted)
    jobs = [job(1, i, owner, policy=policy, index=i, RequestCpus=cpus, JobStatus=status)
            for i, (owner, cpus, status) in enumerate(specs)]
    claims = [Claim(f"s{i}@m", f"1.{i}", f"alice@{UID}", 1.0, 0.0) for i in sorted(held)]
    subs = {f"alice@{UID}": Submitter(f"alice@{UID}", 500.0, 2.5),
            f"dave@{UID}": Submitter(f"dave@{UID}", 500.0, 0.0),
            "grp": Submitter("grp", 500.0, 9.0)}
    got = demand_of(jobs, subs, claims, policy)
    assert got == _reference(jobs, subs, claims, policy)
    assert list(got) == sorted(got) and "grp" not in got and f"dave@{UID}" not in got


def test_job_weight_reads_request_cpus_as_a_number_at_least_zero():
    policy = Policy(uid_domain=UID)
    weights = {cpus: job_weight(job(1, 0, "a", policy=policy, RequestCpus=cpus), policy)
               for cpus in CPUS}
    assert weights["4"] == 4.0 and weights["0"] == 0.0 and weights["2.5"] == 2.5
    assert weights["-2"] == weights["-0.5"] == weights['"8"'] == weights["undefined"] == 1.0
    assert weights["true"] == 1.0 and weights["false"] == 0.0
    assert weights["RequestMemory / 1024"] == 1.0  # 1024 / 1024
