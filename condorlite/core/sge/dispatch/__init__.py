"""Grid Engine's scheduling run on a cell dump: which pending jobs start where, which
reserve resources for later, why the others wait, and the schedule file's lines.

Entry point: ``schedule(cell, prioritise(cell, now), now) -> Run`` (``run``); the
outcome's types are in ``outcome``. The rest is private: ``world`` (levels of
consumables, queue instances, debits), ``diagram`` (use over time), ``order``
(queue instance order), ``lists`` (the run's queue lists and their messages),
``static`` (the static checks), ``verdicts`` (their answers, kept per cluster queue,
host and request), ``assign`` (fit), ``place`` (sequential and parallel placement),
``rules`` (a PE's allocation rule), ``later`` (a parallel job's reservation).
"""

from .outcome import SEPARATOR, Grant, Reservation, Resource, Run, Started, Waiting
from .run import schedule

__all__ = ["SEPARATOR", "Grant", "Reservation", "Resource", "Run", "Started", "Waiting", "schedule"]
