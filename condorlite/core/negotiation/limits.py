"""Fair-share limits (HTCondor's calculateNormalizationFactor / calculateSubmitterLimit).

For the submitters still negotiating in a pie spin, with ``P`` the pool size (the sum
of every slot's weight, claimed ones included) and ``U_i`` what submitter ``i`` uses
now (its usage changes as matches are made during the cycle)::

    share_i = (1 / EUP_i) / sum_j (1 / EUP_j)          (= maxEUP/EUP_i / sum maxEUP/EUP_j)
    limit_i = max(0, share_i * P - U_i)
    pie     = sum_i limit_i

In the floor round, ``limit_i = min(Floor_i, limit_i)``. A limit larger than the pie
left is cut to it. HTCondor keeps a second, *unclaimed* limit beside it: the fair-share
``limit_i`` before the floor and the pie cut it (within a group's room, with groups).
A match without preemption must fit the unclaimed limit, counting only such matches; a
priority preemption must fit the limit, counting every match; the turn stops once what
it used reaches the limit. The round-up rule (``permits``): a match of cost ``c`` is
allowed when ``used + c <= limit``, or when nothing has been used yet in this spin and
the limit is positive, so a fraction of a slot left over is not stranded between users.

A Ceiling is worked out in whole numbers (``ceiling_left``): what it leaves is the
ceiling less the weighted usage truncated, as HTCondor's integer arithmetic does.

Deliberate difference: ``used + c <= limit`` is tested with a relative tolerance of
``TOLERANCE`` (1e-6), so a limit that floating-point division leaves a hair short of a
whole slot (a share of 0.9999999 of 3 slots) still takes it; without it, a nice user
with a share of 1e-7 would take a slot a user with a share of 0.9999999 wanted.
"""

from __future__ import annotations

TOLERANCE = 1e-6


def shares(eups: dict[str, float]) -> dict[str, float]:
    """Each submitter's fraction of the pool (they sum to 1)."""
    if not eups:
        return {}
    top = max(eups.values())
    weights = {name: top / eup for name, eup in eups.items()}
    total = sum(weights.values())
    return {name: w / total for name, w in weights.items()}


def limit(share: float, pool: float, usage: float) -> float:
    """What a submitter may still take: ``max(0, share * pool - usage)``."""
    return max(0.0, share * pool - usage)


def permits(used: float, cost: float, allowed: float) -> bool:
    """HTCondor's SubmitterLimitPermits, round-up rule included:
    ``used + cost <= permit_bound(allowed) or permits_any(used, allowed)``."""
    return used + cost <= permit_bound(allowed) or permits_any(used, allowed)


def permit_bound(allowed: float) -> float:
    """The most ``used + cost`` may reach: ``allowed`` and its tolerance."""
    return allowed + TOLERANCE * max(1.0, abs(allowed))


def permits_any(used: float, allowed: float) -> bool:
    """The round-up rule: nothing used yet in this spin and a positive limit."""
    return used <= 0 < allowed


def ceiling_left(ceiling: float, usage: float) -> int:
    """What a submitter's Ceiling leaves it this spin, as HTCondor works it out: whole
    numbers (the ceiling and the weighted usage each truncated), never below 0."""
    return max(0, int(ceiling) - int(usage))
