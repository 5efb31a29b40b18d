"""What a submitter's limits allow a list walk (``list_scan``): the turn's bounds, the
permit they give with what the turn has used, and the rules that cut a walk the
limit refuses.

A turn works out its limits once (``Bounds``, fixed for the turn) and hands them to
each of its walks; a walk tests an entry's cost against them and what the turn has
used at each pick (``ListWalk.pick``, the rule written out there), and makes a
``Permit`` only at a refusal that asks whether every entry left is refused. That
answer (``ListWalk._rest_refused``) reads the list; the rules it applies are here:
the class's cost floor refused both without preemption and by priority
(``Permit.refuses_floor``), else what is left of each kind of entry
(``RestFloors``, read off the list) refused kind by kind (``RestFloors.refused``).

The rule (HTCondor's ``matchmakingAlgorithm``): an entry that takes a slot nobody
holds is allowed when ``free_used + cost <= free_bound``, or by the round-up rule
when nothing was used yet under a positive limit; a priority preemption the same
with ``prio_used`` and ``prio_bound``; a rank preemption always.
"""

from __future__ import annotations

import math
from typing import NamedTuple


class Permit(NamedTuple):
    """What a walk needs of a submitter's limits for one job (``limits.permits``
    worked out for the turn's limits): an entry that takes a slot nobody holds is
    allowed when ``free_used + cost <= free_bound or free_round``, a priority
    preemption when ``prio_used + cost <= prio_bound or prio_round``, a rank
    preemption always (module doc). A match changes it, nothing else:
    ``ListWalk.pick`` tests it from the turn's ``Bounds`` and what is used, and makes
    it only for a refusal's ``_rest_refused`` (``Bounds.permit``)."""

    #: used so far this spin by slots nobody held, and in all
    free_used: float
    prio_used: float
    #: the most ``used + cost`` may reach under each limit (``limits.permit_bound``)
    free_bound: float
    prio_bound: float
    #: whether the round-up rule lets any cost through (``limits.permits_any``)
    free_round: bool
    prio_round: bool

    def refuses_floor(self, floor: float) -> bool:
        """Whether both limits refuse ``floor`` (the least any entry of a class
        costs, ``PieceCosts.floor``) by their bounds, the round-up rule aside: then,
        with no entry by rank preemption and no round-up rule in force, every entry
        is refused."""
        return (self.free_used + floor > self.free_bound
                and self.prio_used + floor > self.prio_bound)


class Bounds(NamedTuple):
    """What a submitter's limits allow in one turn (``TurnLimits`` worked out once per
    turn, fixed for it): the bounds of ``Permit`` and whether each limit is positive.
    With what the turn used so far, the walk's ``Permit`` (``permit``): a walk is
    given its turn's bounds and, at each pick, only what is used, which a match
    changes (no permit made per match)."""

    #: the most ``used + cost`` may reach under each limit (``limits.permit_bound``)
    free_bound: float
    prio_bound: float
    #: whether each limit is positive (the round-up rule: ``limits.permits_any``)
    free_positive: bool
    prio_positive: bool

    def permit(self, free_used: float, prio_used: float) -> Permit:
        """The ``Permit`` of a turn that has used ``free_used`` by slots nobody held
        and ``prio_used`` in all."""
        return Permit(free_used, prio_used, self.free_bound, self.prio_bound,
                      free_used <= 0 and self.free_positive,
                      prio_used <= 0 and self.prio_positive)


class RestFloors(NamedTuple):
    """What is left in a list (``ListWalk._rest_floors``): the least cost of an entry
    by no preemption and of one by priority preemption (inf: none), and whether an
    entry by rank preemption is."""

    free: float
    prio: float
    rank: bool

    def refused(self, permit: Permit) -> bool:
        """Whether ``permit`` refuses every entry these floors bound: no entry by
        rank preemption, and, by no preemption and by priority alike, none at all,
        or none the round-up rule lets through and the least cost refused."""
        if self.rank:
            return False
        free, prio = self.free, self.prio
        free_refused = free == math.inf or (
            not permit.free_round and permit.free_used + free > permit.free_bound)
        return free_refused and (prio == math.inf or (
            not permit.prio_round and permit.prio_used + prio > permit.prio_bound))
