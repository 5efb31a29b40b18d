"""The cycle's count of evaluations.

One ``EvaluationCount`` per cycle, made by ``matchmaker.Matchmaker`` and handed to the
parts that evaluate (the offer shapes, the match table, the request lists, the held
and carved lists, the reasons): each adds to ``evaluations`` once per pair, rank or
policy evaluation it runs, so the figure the cycle reports (``CycleResult``'s
``evaluations``, the benchmarks' ``evaluations``) counts the work done by all of them
alike. It lives in a module of its own because those parts import it and nothing
else from one another.
"""

from __future__ import annotations


class EvaluationCount:
    """The cycle's count of evaluations (pair, rank and policy evaluations alike), one
    counter shared by the matchmaker and the parts it owns."""

    __slots__ = ("evaluations",)

    def __init__(self) -> None:
        self.evaluations = 0
