"""``slot_ranks.StringRows``: where every held Rank of a plan is a ``StringTest`` ``==``
on one name with an ASCII string, a class's Ranks are one row (each key's value for a
false comparison, the keys whose string equals the job's, lower-cased, taking their
value for a true one). Checked against the plain reference cycle, shown to be the
path taken and to matter (a row blind to the job decides otherwise), and which plans
are not rows."""

from __future__ import annotations

import pytest

from condorlite.core.classad import parse_ad
from condorlite.core.matching import slot_ranks
from condorlite.core.matching.slot_ranks import MISSING, SharedRanks, StringRows
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_slot_rank_tests import JOBS, SLOTS, _desktop

POLICY = Policy(uid_domain=UID, preemption_requirements="False")


def _rows(monkeypatch: pytest.MonkeyPatch) -> list[tuple | None]:
    """Record every row ``StringRows.row`` gives."""
    made: list[tuple | None] = []
    row = StringRows.row

    def recorded(self, *args):  # type: ignore[no-untyped-def]
        found = row(self, *args)
        made.append(found)
        return found

    monkeypatch.setattr(StringRows, "row", recorded)
    return made


def test_rows_decide_as_the_reference(monkeypatch) -> None:
    made = _rows(monkeypatch)
    fast, result = run_both(SLOTS, JOBS, POLICY)
    assert result.matches
    # (every plan's Ranks a row: two rank keys, "A" and "b", each of two values)
    assert made and None not in made
    assert {len(row) for row in made} <= {1, 2}
    assert len({row for row in made}) > 1
    values = fast.mm.lists.reasons._shared.values
    assert len(values) <= 4


def test_a_row_blind_to_the_job_decides_otherwise(monkeypatch) -> None:
    # Every job asked as one of owner "z", which no desktop prefers: the owners of
    # the desktops then take none by rank.
    row = StringRows.row
    nobody = parse_ad('Owner = "z"')

    def blind(self, job_ad, keys, firsts, ask):  # type: ignore[no-untyped-def]
        return row(self, nobody, keys, firsts, ask)

    monkeypatch.setattr(StringRows, "row", blind)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY)


@pytest.mark.parametrize("rank", [
    'TARGET.Owner != "A"',  # (not ==)
    'TARGET.Cmd == "A"',  # (another name than the other keys')
    'TARGET.Owner == "\u00c9"',  # (not ASCII: compare folds A-Z only)
    "TARGET.RequestCpus + 1",  # (no string test)
])
def test_plans_that_are_not_rows(monkeypatch, rank: str) -> None:
    made = _rows(monkeypatch)
    slots = [*SLOTS, _desktop(9, rank)]
    _, result = run_both(slots, JOBS, POLICY)
    assert result.matches
    # (the plans holding the odd desktop's group; once it is taken, rows again)
    assert made and made[0] is None


def test_a_job_not_binding_an_ascii_string_is_no_row() -> None:
    rows = StringRows(SharedRanks(lambda ad, names: ()))
    keys = (1,)
    rows._rows[keys] = slot_ranks.RowKeys(keys, [], "Owner", {"a": [0]}, [MISSING])
    for job in ("Owner = 3", 'Owner = "\u00e9"', "Cmd = 1", 'Owner = strcat("a")'):
        assert rows.row(parse_ad(job), keys, list, lambda first: 0.0) is None
