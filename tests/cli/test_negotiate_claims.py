"""The claims of ``negotiate`` as the store keeps them: the rows made without building a
Claim per match, and their extra text composed by ``ExtraText``, equal what
``claim_to_row`` and ``json.dumps(extra, sort_keys=True)`` give."""

from __future__ import annotations

import json
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.cli.negotiate_claims import (
    ExtraText,
    LiveClaims,
    claim_from_row,
    claim_to_row,
    claims_from_values,
)
from condorlite.core.accounting import ClaimRow
from condorlite.core.model import Claim, Match

NAMES = st.sampled_from(["slot1@h", "slot2@h", "slot1@hé", 'q"uote@h', "p@h", "p2@h"])
USERS = st.sampled_from(["a@x", "b@x", "ü@x", "c\\d@x"])
RESOURCES = st.lists(st.tuples(st.sampled_from(["Cpus", "Memory", "Disk", "GPUs", "Zé"]),
                               st.sampled_from([0.0, 1.0, 2.5, 1e20, 3072.0, -1.0])),
                     max_size=4, unique_by=lambda p: p[0]).map(lambda r: tuple(sorted(r)))


def _expected(claim: Claim) -> tuple:
    row = claim_to_row(claim)
    return (row.slot, row.job, row.submitter, row.weight, row.start_time,
            json.dumps(row.extra, sort_keys=True))


CLAIMS = st.builds(
    Claim, slot=NAMES, job=st.sampled_from([None, "1.0", "2.3"]), submitter=USERS,
    weight=st.sampled_from([1.0, 2.0, 0.5]), start_time=st.sampled_from([10.0, 99.5]),
    partitionable=st.sampled_from([None, "p@h", "pé@h"]), resources=RESOURCES,
    observed=st.booleans(), preempted_user=st.sampled_from([None, "z@x", "ü@x"]),
).map(lambda c: c if c.partitionable else replace(c, resources=()))  # as stored


@settings(max_examples=300, deadline=None)
@given(CLAIMS)
def test_extra_text_is_the_sorted_key_json_of_claim_to_row(claim):
    text = ExtraText()(claim.observed, claim.partitionable, claim.resources,
                       claim.preempted_user)
    assert text == json.dumps(claim_to_row(claim).extra, sort_keys=True)


MATCHES = st.builds(
    Match, job=st.sampled_from(["5.0", "5.1", "6.0"]), submitter=USERS,
    slot=NAMES, reason=st.just("no preemption"), weight=st.sampled_from([1.0, 4.0]),
    autocluster=st.just(1), spin=st.just(1),
    preempting=st.sampled_from([None, "a@x", "b@x"]),
    partitionable=st.sampled_from([None, "p@h", "p2@h"]), resources=RESOURCES)


@settings(max_examples=150, deadline=None)
@given(st.lists(CLAIMS, max_size=6, unique_by=lambda c: c.slot),
       st.lists(MATCHES, max_size=6), st.data())
def test_row_values_are_the_rows_of_the_built_claims(before, matches, data):
    by_slot = {c.slot: c for c in before}
    preempted = data.draw(st.lists(st.sampled_from(before), max_size=2)) if before else []
    live = LiveClaims(by_slot, matches, preempted, 1000.0)
    rows = live.row_values()
    claims = live.claims()
    assert rows == [_expected(c) for c in claims]
    assert live.count() == len(claims) == len(rows)
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    # What is stored reads back as the same claims.
    read = [claim_from_row(ClaimRow(s, j, u, w, t, json.loads(x))) for s, j, u, w, t, x in rows]
    assert read == claims


EXTRA_TEXTS = st.sampled_from([
    '{"observed": false}', '{"observed": true}', "{}", "null", '{"Cpus": 2}',
    '{"observed": false, "partitionable": "p@h", "resources": {"Memory": 2048, "Cpus": 2.5}}',
    '{"observed": false, "preempted_user": "z@x"}', '{"observed": 1, "preempted_user": ""}',
    '{"partitionable": "p@h", "resources": {}}'])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(NAMES, st.sampled_from(["", "1.0"]), USERS,
                          st.sampled_from([1.0, 2.0]), st.sampled_from([5.0, 7.5]),
                          EXTRA_TEXTS), max_size=8))
def test_claims_from_values_reads_each_row_as_claim_from_row(values):
    expected = [claim_from_row(ClaimRow(s, j, u, w, t, json.loads(x)))
                for s, j, u, w, t, x in values]
    assert claims_from_values(values) == expected
