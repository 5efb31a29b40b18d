"""The plain matchmaker the shared one must agree with (equivalence tests only)."""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.matching.candidates import PairEval
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.offers import Offer, requested


class ReferenceTable(MatchTable):
    """The match table that remembers nothing: every pair, fit and
    PREEMPTION_REQUIREMENTS evaluated afresh."""

    def fit(self, class_id: int, job_ad: ClassAd, offer: Offer) -> dict[str, float] | None:
        return requested(offer.ad, job_ad, self.now)

    def _fit_of(self, offer: Offer, job_ad: ClassAd) -> dict[str, float] | None:
        return requested(offer.ad, job_ad, self.now)  # nothing remembered

    def pair(self, class_id: int, job_ad: ClassAd, offer: Offer, signature: tuple = ()) -> PairEval:
        return self._evaluate_pair(job_ad, offer)

    def preemption_allowed(
        self, class_id: int, job_ad: ClassAd, offer: Offer, signature: tuple
    ) -> bool:
        self.counts.evaluations += 1
        value = adeval.eval_expr(self.exprs.preemption_requirements, offer.ad, job_ad, self.now)
        return adeval.as_bool(value)


class ReferenceMatchmaker(Matchmaker):
    """The plain evaluator the shared one must agree with (equivalence tests only).

    Nothing is shared: every offer is its own shape, every policy rank is evaluated
    for every (job, slot) pair, and no pair or PREEMPTION_REQUIREMENTS result is
    remembered."""

    use_vectors = False
    bounds_costs = False  # every refused entry is walked
    lists_by_shape = False  # always offer by offer
    table_class = ReferenceTable

    def prepare(self, offer: Offer) -> None:
        shapes = self.shapes
        shapes.shape_numbers[("offer", len(shapes.shape_numbers))] = len(shapes.shape_numbers) + 1
        offer.pair_shape = len(shapes.shape_numbers)
        shapes.pair_of_shape[offer.pair_shape] = offer.pair_shape
        shapes.place(offer, len(shapes.shape_numbers))
        offer.independent = {}
