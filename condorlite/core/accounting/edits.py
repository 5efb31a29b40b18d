"""Admin edits of accountant records (``condor_userprio -setprio``, ``-setfactor`` ...).

Pure, as the accountant (``core.accounting.accountant``): each edit returns a NEW
``AccountantState``.
The set* edits create the record when it does not exist yet, as HTCondor's
SetAttribute does (admins pre-set factors for users who have not submitted yet);
``reset_usage`` and ``delete`` name an existing record and refuse an unknown one.
Values are checked as ``condor_userprio`` checks them: a factor >= 1, a priority,
usage or time >= 0, a ceiling >= -1, a floor >= 0.

The package (``condorlite.core.accounting``) names every public edit next to the
accountant's updates.
"""

from __future__ import annotations

import math
from dataclasses import replace

from condorlite.core.accounting.accountant import (
    MIN_PRIORITY_FACTOR,
    AccountantState,
    Record,
    _with,
    new_record,
)
from condorlite.core.policy import Policy
from condorlite.errors import DomainError, UsageError


def _finite(what: str, value: float) -> float:
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise UsageError(f"{what} must be a finite number, not {value!r}")
    return float(value)


def _get_or_new(state: AccountantState, policy: Policy, name: str, now: float) -> Record:
    return state.records.get(name) or new_record(name, policy, now)


def _existing(state: AccountantState, name: str) -> Record:
    rec = state.records.get(name)
    if rec is None:
        raise DomainError(
            f"no accountant record named {name}",
            hint="condorlite userprio --allusers lists every record",
        )
    return rec


def set_priority(
    state: AccountantState, policy: Policy, name: str, value: float, now: float
) -> AccountantState:
    """Set the real priority (RUP); it must be >= 0 (below 0.5 acts as 0.5)."""
    if _finite("the priority", value) < 0:
        raise UsageError(f"the priority must be >= 0, not {value}")
    return _with(state, replace(_get_or_new(state, policy, name, now), priority=float(value)))


def set_factor(
    state: AccountantState, policy: Policy, name: str, value: float, now: float
) -> AccountantState:
    """Set the priority factor; HTCondor refuses factors below 1."""
    if _finite("the priority factor", value) < MIN_PRIORITY_FACTOR:
        raise UsageError(f"priority factors must be greater than or equal to 1, not {value}")
    rec = _get_or_new(state, policy, name, now)
    return _with(state, replace(rec, priority_factor=float(value)))


def set_accumulated_usage(
    state: AccountantState, policy: Policy, name: str, seconds: float, now: float
) -> AccountantState:
    """Set the accumulated usage in (weighted) seconds.

    As HTCondor's SetAccumUsage, the value goes into WeightedAccumulatedUsage only.
    """
    if _finite("the accumulated usage", seconds) < 0:
        raise UsageError(f"the accumulated usage must be >= 0 seconds, not {seconds}")
    rec = _get_or_new(state, policy, name, now)
    return _with(state, replace(rec, weighted_accumulated_usage=float(seconds)))


def _set_time(
    state: AccountantState, policy: Policy, name: str, epoch: float, now: float, attr: str
) -> AccountantState:
    if _finite("the time", epoch) < 0:
        raise UsageError(f"the time must be >= 0 epoch seconds, not {epoch}")
    rec = _get_or_new(state, policy, name, now)
    return _with(state, replace(rec, **{attr: float(int(epoch))}))


def set_begin_usage_time(
    state: AccountantState, policy: Policy, name: str, epoch: float, now: float
) -> AccountantState:
    """Set BeginUsageTime (whole epoch seconds, as HTCondor stores it)."""
    return _set_time(state, policy, name, epoch, now, "begin_usage_time")


def set_last_usage_time(
    state: AccountantState, policy: Policy, name: str, epoch: float, now: float
) -> AccountantState:
    """Set LastUsageTime (whole epoch seconds)."""
    return _set_time(state, policy, name, epoch, now, "last_usage_time")


#: The largest ceiling or floor: a slot count SQLite stores as an integer (2**63 - 1),
#: far past any pool; a larger one is a typo.
MAX_SLOTS = 2**63 - 1


def set_ceiling(
    state: AccountantState, policy: Policy, name: str, value: int, now: float
) -> AccountantState:
    """Set the submitter ceiling (a cap on slots); -1 means unlimited."""
    if not isinstance(value, int) or not -1 <= value <= MAX_SLOTS:
        raise UsageError(f"ceiling must be an integer greater than or equal to -1 and at most "
                         f"{MAX_SLOTS}, not {value}")
    return _with(state, replace(_get_or_new(state, policy, name, now), ceiling=value))


def set_floor(
    state: AccountantState, policy: Policy, name: str, value: int, now: float
) -> AccountantState:
    """Set the submitter floor (slots guaranteed first); 0 means none."""
    if not isinstance(value, int) or not 0 <= value <= MAX_SLOTS:
        raise UsageError(f"floor must be an integer greater than or equal to 0 and at most "
                         f"{MAX_SLOTS}, not {value}")
    return _with(state, replace(_get_or_new(state, policy, name, now), floor=value))


def _reset(rec: Record, now: float) -> Record:
    return replace(
        rec, accumulated_usage=0.0, weighted_accumulated_usage=0.0, begin_usage_time=now
    )


def reset_usage(state: AccountantState, name: str, now: float) -> AccountantState:
    """Zero the accumulated usage of one record and restart its usage clock at ``now``."""
    return _with(state, _reset(_existing(state, name), now))


def reset_all(state: AccountantState, now: float) -> AccountantState:
    """``reset_usage`` for every record."""
    records = {name: _reset(rec, now) for name, rec in state.records.items()}
    return AccountantState(state.last_update_time, records)


def delete(state: AccountantState, name: str) -> AccountantState:
    """Remove a record from the accountant."""
    _existing(state, name)
    records = {k: v for k, v in state.records.items() if k != name}
    return AccountantState(state.last_update_time, records)
