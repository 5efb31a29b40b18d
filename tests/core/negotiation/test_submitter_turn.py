"""One submitter's turn driven directly (``submitter_turn.TurnNegotiator``): what a
``TurnLimits`` allows it, how it ends (``TurnEnd``), what it charges and records, and
the group turn's room it shrinks."""

from __future__ import annotations

from condorlite.core.model import Submitter
from condorlite.core.negotiation.negotiator import Cycle
from condorlite.core.negotiation.submitter_attrs import GroupTurn
from condorlite.core.negotiation.submitter_turn import TurnEnd, TurnLimits
from condorlite.core.policy import Policy
from tests.core._pool import UID, job, slot, user

NOW = 1_700_000_000
POLICY = Policy(uid_domain=UID)


def _cycle(jobs: int = 5, slots: int = 4) -> Cycle:
    return Cycle([slot(f"slot{i}@m{i}") for i in range(slots)],
                 [job(1, p, "a") for p in range(jobs)],
                 {user("a"): Submitter(user("a"), 1, 0)}, [], POLICY, NOW)


def test_a_turn_stops_at_its_limit_and_resumes_where_it_stopped():
    cycle = _cycle()
    turn = cycle.turns[0]
    first = cycle.negotiator.negotiate(turn, TurnLimits(2.0, 2.0, None, False, 1, None), 10.0)
    assert first == TurnEnd(False, 8.0)  # the limit reached: it resumes
    assert [m.job for m in cycle.matches] == ["1.0", "1.1"]
    assert turn.done == {"1.0", "1.1"} and turn.matched_jobs == 2
    assert cycle.usage[user("a")] == 2.0  # charged on the way out
    assert cycle.stats["matches"] == 2 and cycle.stats["jobs_considered"] == 2
    # the next spin: the two slots left are matched, the fifth job is rejected
    second = cycle.negotiator.negotiate(turn, TurnLimits(9.0, 9.0, None, False, 2, None), 8.0)
    assert second == TurnEnd(True, 6.0)
    assert [(m.job, m.spin) for m in cycle.matches[2:]] == [("1.2", 2), ("1.3", 2)]
    assert [(r.job, r.reason) for r in cycle.rejections.last.values()] == [
        ("1.4", "no match found")]
    assert cycle.stats["rejection_events"] == 1 and cycle.usage[user("a")] == 4.0


def test_a_turn_stops_at_its_ceiling():
    cycle = _cycle()
    end = cycle.negotiator.negotiate(cycle.turns[0], TurnLimits(9.0, 9.0, 1, False, 1, None),
                                     9.0)
    assert end == TurnEnd(False, 8.0) and len(cycle.matches) == 1


def test_every_match_shrinks_the_group_turns_room():
    cycle = _cycle(jobs=3)
    room = GroupTurn("group_a", False, 5.0)
    end = cycle.negotiator.negotiate(cycle.turns[0], TurnLimits(9.0, 9.0, None, False, 1, room),
                                     9.0)
    assert end == TurnEnd(True, 6.0) and room.room == 2.0
    assert (room.group, room.autoregroup) == ("group_a", False)
