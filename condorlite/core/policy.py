"""The validated configuration, with HTCondor's knob names and modern defaults.

``Policy`` is built by ``condorlite.store.config`` from ``condorlite.toml``; the core
only ever sees this typed, immutable object. Field names are the knob names in lower
case (``PRIORITY_HALFLIFE`` -> ``priority_halflife``). Per-group knobs
(``GROUP_QUOTA_<g>``, ``GROUP_PRIO_FACTOR_<g>`` ...) are dictionaries keyed by the
group name as configured. Expression knobs hold the expression text; the loader has
already parsed it once, so it is known to be valid.

Defaults follow modern HTCondor. Where the seed documents (HTCondor 6.x/7.x manuals)
differ, the seed's value is one setting away; the README lists each difference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

#: HTCondor's default NEGOTIATOR_PRE_JOB_RANK (param_info.in, modern releases):
#: prefer slots whose Rank prefers the job, then unclaimed slots, then the slot that
#: wastes the fewest cores and memory.
DEFAULT_PRE_JOB_RANK = (
    "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) "
    "- (100000 * Cpus) - Memory"
)
#: HTCondor's default NEGOTIATOR_POST_JOB_RANK.
DEFAULT_POST_JOB_RANK = (
    "(RemoteOwner =?= UNDEFINED) * (ifThenElse(isUndefined(KFlops), 1000, Kflops) "
    "- SlotID - 1.0e10*(Offline=?=True))"
)
#: HTCondor's default PREEMPTION_RANK: preempt the worst-priority user's
#: most recently started job first.
DEFAULT_PREEMPTION_RANK = (
    "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRunTime), 0, TotalJobRunTime)"
)


@dataclass(frozen=True)
class Policy:
    """Every knob condorlite reads. See the README's configuration table."""

    # -- accountant ---------------------------------------------------------------
    priority_halflife: float = 86400.0
    default_prio_factor: float = 1000.0
    nice_user_prio_factor: float = 1e10
    remote_prio_factor: float = 1e7
    accountant_local_domain: str | None = None
    uid_domain: str = "localdomain"

    # -- negotiator ---------------------------------------------------------------
    slot_weight: str = "Cpus"
    negotiator_use_slot_weights: bool = True
    preemption_requirements: str = "False"
    preemption_rank: str = DEFAULT_PREEMPTION_RANK
    negotiator_pre_job_rank: str = DEFAULT_PRE_JOB_RANK
    negotiator_post_job_rank: str = DEFAULT_POST_JOB_RANK
    significant_attributes: tuple[str, ...] | None = None
    negotiate_all_jobs_in_cluster: bool = False
    slots: tuple[str, ...] = ()
    jobs: tuple[str, ...] = ()
    sge_cell_dump: str | None = None
    history_retention: float = 90 * 86400.0

    # -- accounting groups --------------------------------------------------------
    group_names: tuple[str, ...] = ()
    group_quota: dict[str, float] = field(default_factory=dict)
    group_quota_dynamic: dict[str, float] = field(default_factory=dict)
    group_accept_surplus: bool = False
    group_accept_surplus_by_group: dict[str, bool] = field(default_factory=dict)
    group_autoregroup: bool = False
    group_autoregroup_by_group: dict[str, bool] = field(default_factory=dict)
    group_prio_factor: dict[str, float] = field(default_factory=dict)
    group_sort_expr: str | None = None
    group_quota_max_allocation_rounds: int = 3
    group_quota_round_robin_rate: float | None = None
    negotiator_allow_quota_oversubscription: bool = True

    # -- what is worked out from the knobs ------------------------------------------
    _derived: dict[Callable, object] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def derived(self, make: Callable[[Policy], T]) -> T:
        """``make(self)``, worked out once per policy object and kept on it: the group
        tree (``groups.build_tree``), a knob's parsed expression. ``make`` must be a
        pure function of the policy named at module level (it is the key). The policy
        is immutable and owned by the command that loaded it, so what is derived from
        it lives exactly as long (``dataclasses.replace`` starts a new policy afresh);
        this is why no package keeps a table of policies."""
        memo = self._derived
        try:
            return memo[make]  # type: ignore[return-value]
        except KeyError:
            value = memo[make] = make(self)
            return value
