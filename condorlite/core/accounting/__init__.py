"""The accountant: per-submitter records, their pure updates, admin edits, recovery.

``accountant`` holds the records, their names and factors, and their decay as time
passes; ``charges`` the charges between updates (matches added and removed); ``edits``
the admin edits (``condor_userprio -set*``); ``recovery`` when a real user priority
gets back to a value. All of it is pure (``now`` is an
argument). The accountant reads the group tree (``core.groups``) to find a record's
group and factor; nothing here knows about matching or the negotiation cycle.

Callers that use the module as a namespace (``from condorlite.core import accounting as
acct``; ``acct.set_factor(...)``) find every public update and edit here.
"""

from condorlite.core.accounting.accountant import (
    CONTROL,
    MIN_PRIORITY,
    MIN_PRIORITY_FACTOR,
    NICE_USER_PREFIX,
    NO_GROUP,
    AccountantState,
    ClaimRow,
    Record,
    assigned_group,
    domain_of,
    effective_priority,
    group_tree,
    has_groups,
    initial_factor,
    new_record,
    parse_submitter_name,
    priority_at,
    update_priorities,
)
from condorlite.core.accounting.charges import add_match, add_matches, charge_moves, remove_match
from condorlite.core.accounting.edits import (
    delete,
    reset_all,
    reset_usage,
    set_accumulated_usage,
    set_begin_usage_time,
    set_ceiling,
    set_factor,
    set_floor,
    set_last_usage_time,
    set_priority,
)

__all__ = [
    "CONTROL", "MIN_PRIORITY", "MIN_PRIORITY_FACTOR", "NICE_USER_PREFIX", "NO_GROUP",
    "AccountantState", "ClaimRow", "Record", "add_match", "add_matches", "assigned_group",
    "charge_moves", "delete", "domain_of", "effective_priority", "group_tree", "has_groups",
    "initial_factor", "new_record", "parse_submitter_name", "priority_at", "remove_match",
    "reset_all", "reset_usage", "set_accumulated_usage", "set_begin_usage_time",
    "set_ceiling", "set_factor", "set_floor", "set_last_usage_time", "set_priority",
    "update_priorities",
]
