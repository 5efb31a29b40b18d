"""When a real user priority gets back to a value: the RUP decay curve from now.

The accountant's update over an interval of ``t`` seconds in which a record holds a
constant weighted usage ``U`` (its ``WeightedResourcesUsed``) is, with the half-life
``h`` (``PRIORITY_HALFLIFE``) and ``beta(t) = 0.5 ** (t / h)``::

    RUP(t) = max(0.5, RUP(0) x beta(t) + U x (1 - beta(t)))

Updates compose: two updates over ``t1`` and ``t2`` give the one over ``t1 + t2``
(``beta`` multiplies and the clamp at 0.5 only ever meets a curve that falls towards a
limit at or under it), so the curve does not depend on how often cycles run. It
falls (or rises) towards ``U``. The time at which it reaches a target ``v``:

* ``RUP(0) <= v``: already there, 0 s; when ``U > v`` the curve rises and passes
  ``v`` again after ``h x log2((U - RUP(0)) / (U - v))`` (``Recovery.rises_past``);
* ``v <= U``: never while the usage lasts (the curve stays above ``U``);
* otherwise ``t = h x log2((RUP(0) - U) / (v - U))``.

``v`` under the minimum 0.5 is never reached; exactly 0.5 is, when ``U`` is 0 (the
clamp). The effective priority is ``max(0.5, RUP) x factor`` throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from condorlite.core.accounting.accountant import MIN_PRIORITY


@dataclass(frozen=True, slots=True)
class Recovery:
    """The answer for one record: ``seconds`` until its RUP reaches ``target`` (0 when
    it is there already, None when it never does under ``usage``), from ``rup`` with
    the weighted ``usage`` held constant, under ``halflife``; ``rises_past``: when it
    is there already but rising, the seconds until it is above ``target`` again."""

    rup: float
    usage: float
    halflife: float
    target: float
    seconds: float | None
    rises_past: float | None = None


def rup_after(rup: float, usage: float, halflife: float, seconds: float) -> float:
    """RUP after ``seconds`` of constant weighted ``usage`` (module doc)."""
    beta = 0.5 ** (seconds / halflife)
    return max(MIN_PRIORITY, max(MIN_PRIORITY, rup) * beta + usage * (1.0 - beta))


def recovery(rup: float, usage: float, halflife: float, target: float) -> Recovery:
    """Time until RUP reaches ``target`` (module doc); ``halflife`` > 0."""
    start = max(MIN_PRIORITY, rup)
    seconds: float | None
    rises: float | None = None
    if start <= target:
        seconds = 0.0
        if usage > target:
            rises = halflife * math.log2((usage - start) / (usage - target))
    elif target < MIN_PRIORITY or target <= usage:
        seconds = None
    else:
        seconds = halflife * math.log2((start - usage) / (target - usage))
    return Recovery(rup=start, usage=usage, halflife=halflife, target=target,
                    seconds=seconds, rises_past=rises)


class CurvePoint(NamedTuple):
    """The RUP ``seconds`` from now."""

    seconds: float
    rup: float


def curve(rup: float, usage: float, halflife: float, span: float, points: int
          ) -> list[CurvePoint]:
    """``points`` (>= 2) evenly spaced points over ``span`` seconds, both ends
    included."""
    step = span / (points - 1)
    return [CurvePoint(i * step, rup_after(rup, usage, halflife, i * step))
            for i in range(points)]
