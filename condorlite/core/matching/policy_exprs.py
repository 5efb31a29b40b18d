"""The policy's rank and preemption expressions, parsed once per cycle."""

from __future__ import annotations

from dataclasses import dataclass

from condorlite.core.classad.ast import Expr
from condorlite.core.classad.parser import parse_expr
from condorlite.core.matching.candidates import POST, PRANK, PRE
from condorlite.core.policy import Policy


@dataclass(frozen=True)
class PolicyExprs:
    """The policy expressions, parsed once per cycle."""

    pre: Expr
    post: Expr
    preemption_rank: Expr
    preemption_requirements: Expr

    @classmethod
    def from_policy(cls, policy: Policy) -> PolicyExprs:
        return cls(
            pre=parse_expr(policy.negotiator_pre_job_rank),
            post=parse_expr(policy.negotiator_post_job_rank),
            preemption_rank=parse_expr(policy.preemption_rank),
            preemption_requirements=parse_expr(policy.preemption_requirements),
        )

    def all(self) -> tuple[Expr, ...]:
        return (self.pre, self.post, self.preemption_rank, self.preemption_requirements)

    def ranks(self, held: bool) -> tuple[tuple[str, Expr], ...]:
        """The policy ranks a slot gets, as (key, expression): PRE_JOB_RANK and
        POST_JOB_RANK, and PREEMPTION_RANK when the slot is held (only a held slot's
        job can be preempted)."""
        both = ((PRE, self.pre), (POST, self.post))
        return (*both, (PRANK, self.preemption_rank)) if held else both
