"""A consumable's use over time (Grid Engine's resource diagram), and amounts as text.

A diagram is a step function: ``points`` are ``(time, amount)`` with times increasing;
the amount holds from its time until the next point (0 before the first). Adding a
job's use of ``u`` over ``[start, end)`` raises every step in that span by ``u`` and puts
points at ``start`` and ``end``. A job without a run time limit ends at ``INFINITY``
(2^32 - 1, Grid Engine's ``U_LONG32_MAX``); ends past it are clamped to it.

    max_over(start, end)  = the highest amount on [start, end)
    below(threshold)      = the earliest time from which the amount stays at or below
                            ``threshold`` for good: scanning from the last point back,
                            the first point at or below it whose predecessor is above
                            it; 0 (now) when there is none (utilization_below)
    queue_end()           = the amount after the last point, ignoring a point at
                            INFINITY (utilization_queue_end)

``now_used`` is the amount in use at the time of the run (RUE_utilized_now): what
running jobs and jobs started in this run hold, reservations not counted.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field

#: Grid Engine's "forever" (U_LONG32_MAX): the end of a job without a run time limit.
INFINITY = 2**32 - 1
#: Seconds added to every job's duration in the resource schedule (sched_conf(5)
#: ``params DURATION_OFFSET``, default 60).
DURATION_OFFSET = 60
#: Amounts above and below any other: ``(time, _ABOVE)`` sorts after every point at
#: ``time``, ``(time, _BELOW)`` before them.
_ABOVE, _BELOW = float("inf"), float("-inf")


def add_offset(duration: int, offset: int) -> int:
    """``duration + offset`` clamped at INFINITY (INFINITY stays INFINITY)."""
    if duration >= INFINITY or offset >= INFINITY:
        return INFINITY
    return min(INFINITY, duration + offset)


def end_time(start: int, duration: int) -> int:
    return min(INFINITY, start + duration)


@dataclass
class Diagram:
    """One resource of one object (global, a host, a queue instance, a PE)."""

    points: list[tuple[int, float]] = field(default_factory=list)
    now_used: float = 0.0

    def _index(self, time: int) -> int:
        """The index of the point at ``time``, inserting one with the amount that
        held there."""
        i = bisect.bisect_left(self.points, (time, _BELOW))
        if i < len(self.points) and self.points[i][0] == time:
            return i
        before = self.points[i - 1][1] if i > 0 else 0.0
        self.points.insert(i, (time, before))
        return i

    def add(self, start: int, end: int, amount: float) -> None:
        if end <= start:
            return
        first = self._index(start)
        last = self._index(end)
        for i in range(first, last):
            t, a = self.points[i]
            self.points[i] = (t, a + amount)

    def amount_at(self, time: int) -> float:
        i = bisect.bisect_right(self.points, (time, _ABOVE))
        return self.points[i - 1][1] if i > 0 else 0.0

    def max_over(self, start: int, end: int) -> float:
        # ``best = max(best, amount)`` written out: asked about a million times in a
        # large run
        points = self.points
        i = bisect.bisect_right(points, (start, _ABOVE))
        best = points[i - 1][1] if i > 0 else 0.0
        size = len(points)
        while i < size:
            time, used = points[i]
            if time >= end:
                break
            if used > best:
                best = used
            i += 1
        return best

    def below(self, threshold: float) -> int:
        for i in range(len(self.points) - 1, 0, -1):
            if self.points[i][1] <= threshold and self.points[i - 1][1] > threshold:
                return self.points[i][0]
        return 0

    def queue_end(self) -> float:
        if not self.points:
            return 0.0
        t, a = self.points[-1]
        if t != INFINITY or len(self.points) == 1:
            return a
        return self.points[-2][1]


# --- amounts ------------------------------------------------------------------------

_MEMORY = re.compile(r"([0-9.]+(?:[eE][+-]?\d+)?)([kKmMgGtT]?)")
_FACTORS = {
    "": 1,
    "k": 1e3,
    "K": 1024,
    "m": 1e6,
    "M": 1024**2,
    "g": 1e9,
    "G": 1024**3,
    "t": 1e12,
    "T": 1024**4,
}
_TIME = re.compile(r"(\d+):(\d+):(\d+)")


@functools.lru_cache(maxsize=8192)
def amount(text: str, kind: str) -> float | None:
    """A complex value as a number (INT, DOUBLE, MEMORY with k/K/m/M/g/G, TIME as
    h:m:s or seconds, BOOL as 1/0); None for text types or what does not parse.
    ``infinity`` is INFINITY."""
    value = text.strip()
    if value.lower() in ("infinity", "inf"):
        return float(INFINITY)
    if kind == "BOOL":
        return {"true": 1.0, "1": 1.0, "false": 0.0, "0": 0.0}.get(value.lower())
    if kind == "TIME" and (m := _TIME.fullmatch(value)):
        h, mi, s = (int(g) for g in m.groups())
        return float(h * 3600 + mi * 60 + s)
    numeric = kind in ("INT", "DOUBLE", "MEMORY", "TIME", "RSMAP")
    if numeric and (m := _MEMORY.fullmatch(value)):
        try:
            return float(m.group(1)) * _FACTORS[m.group(2)]
        except ValueError:
            return None
    return None
