"""``condorlite userprio``: the accountant's records, as ``condor_userprio`` shows them.

Priorities are shown as an update at ``--now`` would leave them (decayed, usage
charged), without writing anything. By default, as HTCondor does, only records with
usage in the 24 hours before ``--now`` are listed; naming records, ``--allusers`` or
``--activefrom`` widen that. The same selection is used for the table, ``--long`` (one
old-format ClassAd per record, HTCondor's accounting-ad attributes) and ``--json``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Annotated, Any

import typer

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, now_or_clock, open_store
from condorlite.cli.errors import run_command, usage_failure
from condorlite.cli.history_rows import CYCLE_KIND
from condorlite.cli.render import Result, real, visible
from condorlite.cli.userprio_groups import arrange, build_rows, group_context
from condorlite.cli.userprio_recover import build_recover
from condorlite.cli.userprio_table import (
    ALL_FLAGS,
    DEFAULT_FLAGS,
    PRIORITY_FLAGS,
    QUOTA_FLAGS,
    SORT_KEY,
    SURPLUS,
    USAGE_FLAGS,
    render_table,
)
from condorlite.core.accounting import (
    MIN_PRIORITY,
    AccountantState,
    Record,
    effective_priority,
    has_groups,
    update_priorities,
)
from condorlite.errors import UsageError

DAY = 86400


def _epoch_or_none(value: float) -> int | float | None:
    return None if value <= 0 else real(value)


def record_json(rec: Record) -> dict[str, Any]:
    """A record as the JSON contract spells it (snake_case HTCondor names).

    Times are epoch seconds, null for never; ``ceiling`` is null with
    ``ceiling_unlimited`` true when there is no ceiling.
    """
    return {
        "name": rec.name,
        "is_accounting_group": rec.is_accounting_group,
        "accounting_group": rec.accounting_group,
        "effective_priority": effective_priority(rec),
        "real_priority": max(MIN_PRIORITY, rec.priority),
        "priority_factor": rec.priority_factor,
        "resources_used": rec.resources_used,
        "weighted_resources_used": rec.weighted_resources_used,
        "accumulated_usage": rec.accumulated_usage,
        "weighted_accumulated_usage": rec.weighted_accumulated_usage,
        "begin_usage_time": _epoch_or_none(rec.begin_usage_time),
        "last_usage_time": _epoch_or_none(rec.last_usage_time),
        "ceiling": None if rec.ceiling < 0 else rec.ceiling,
        "ceiling_unlimited": rec.ceiling < 0,
        "floor": rec.floor,
        "hier_weighted_resources_used": rec.hier_weighted_resources_used,
    }


def _ad_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        return repr(value)
    return str(value)


def record_ad(rec: Record, last_update: float) -> list[str]:
    """One record as HTCondor's accounting ad (old ClassAd syntax), attributes sorted.

    ``Priority`` is the effective priority, as HTCondor reports it; ``RealPriority`` is
    added so that importing the text back is exact. Group records carry
    ``HierWeightedResourcesUsed`` as HTCondor's do.
    """
    attrs: dict[str, Any] = {
        "AccountingGroup": rec.accounting_group,
        "AccumulatedUsage": rec.accumulated_usage,
        **({"HierWeightedResourcesUsed": rec.hier_weighted_resources_used}
           if rec.is_accounting_group else {}),
        "BeginUsageTime": int(rec.begin_usage_time),
        "Ceiling": rec.ceiling,
        "Floor": rec.floor,
        "IsAccountingGroup": rec.is_accounting_group,
        "LastUpdate": int(last_update),
        "LastUsageTime": int(rec.last_usage_time),
        "MyType": "Accounting",
        "Name": rec.name,
        "Priority": effective_priority(rec),
        "PriorityFactor": rec.priority_factor,
        "RealPriority": rec.priority,
        "ResourcesUsed": rec.resources_used,
        "WeightedAccumulatedUsage": rec.weighted_accumulated_usage,
        "WeightedResourcesUsed": rec.weighted_resources_used,
    }
    return [f"{k} = {_ad_value(v)}" for k, v in attrs.items()]


def parse_activefrom(text: str) -> float:
    """``MM/DD/YYYY`` -> local midnight (HTCondor's CalcTime; 2-digit years < 50 are 20xx)."""
    parts = text.split("/")
    try:
        month, day, year = (int(p) for p in parts)
    except ValueError:
        raise UsageError(f"--activefrom expects MM/DD/YYYY, not {text!r}") from None
    if year < 50:
        year += 2000
    elif year < 100:
        year += 1900
    if not (1 <= month <= 12 and 1 <= day <= 31):
        raise UsageError(f"--activefrom expects MM/DD/YYYY, not {text!r}")
    try:
        return time.mktime((year, month, day, 0, 0, 0, 0, 0, -1))
    except (OverflowError, ValueError):
        raise UsageError(f"--activefrom date out of range: {text!r}") from None


def _wanted(rec: Record, names: list[str]) -> bool:
    user = rec.name.partition("@")[0]
    return any(n == rec.name or ("@" not in n and n == user) for n in names)


def in_use_counts_as_used(state: AccountantState, now: float) -> AccountantState:
    """Records holding slots right now show as used at ``now``.

    The accountant stamps ``LastUsageTime`` at its next update after usage, so in the
    moment between a cycle's matches and the next update (e.g. ``userprio`` at the same
    ``--now`` as the cycle) a user running jobs would otherwise be hidden as inactive.
    """
    records = {
        name: replace(rec, last_usage_time=now)
        if rec.resources_used > 0 or rec.weighted_resources_used > 0
        else rec
        for name, rec in state.records.items()
    }
    return replace(state, records=records)


def select_records(
    records: dict[str, Record], names: list[str], min_last_usage: float
) -> list[Record]:
    """Named records (exact ``user@domain``, or by user part), else the active ones."""
    chosen = []
    for rec in records.values():
        if names and not _wanted(rec, names):
            continue
        last = rec.last_usage_time if rec.last_usage_time != 0 else -1.0
        if last < min_last_usage:
            continue
        chosen.append(rec)
    return chosen


def _flags(show_all: bool, usage: bool, priority: bool, quotas: bool, surplus: bool,
           sortkey: bool) -> frozenset[str]:
    flags: set[str] = set()
    if show_all:
        flags |= ALL_FLAGS
    if usage:
        flags |= USAGE_FLAGS
    if priority:
        flags |= PRIORITY_FLAGS
    if quotas:
        flags |= QUOTA_FLAGS
    if surplus:
        flags.add(SURPLUS)
    if sortkey:
        flags.add(SORT_KEY)
    return frozenset(flags) or DEFAULT_FLAGS


@dataclass(frozen=True)
class GroupOptions:
    """The group-view options: layout (``hierarchical`` None = the default), rollup,
    and the group columns asked for."""

    hierarchical: bool | None = None
    group_order: bool = False
    rollup: bool = False
    quotas: bool = False
    surplus: bool = False
    sortkey: bool = False


def _hierarchical(hier: bool, flat: bool) -> bool | None:
    if hier and flat:
        raise UsageError("--hierarchical and --flat exclude each other")
    return True if hier else False if flat else None


def build_userprio(
    state_dir, now: str | float | None, names: list[str], show_all: bool, usage: bool,
    priority: bool, allusers: bool, activefrom: str | None, long: bool, lock_timeout: float,
    config=None, groups: GroupOptions | None = None,
) -> Result:
    opts = groups or GroupOptions()
    at = now_or_clock(now)
    if names or allusers:
        min_last = -1.0
    elif activefrom:
        min_last = parse_activefrom(activefrom)
    else:
        min_last = at - DAY
    store = open_store(state_dir, lock_timeout, config, write=False)
    with store.transaction(write=False) as tx:
        stored = tx.load_accountant()
        last_cycle = tx.last_history(CYCLE_KIND)
    policy = store.policy
    view = in_use_counts_as_used(update_priorities(stored, policy, at), at)
    ctx = group_context(policy, view.records, last_cycle) if has_groups(policy) else None
    flags = _flags(show_all, usage, priority, opts.quotas, opts.surplus, opts.sortkey)
    chosen = select_records(view.records, names, min_last)
    rows = build_rows(chosen, view.records, ctx, opts.rollup)
    laid = arrange(rows, flags, hierarchical=opts.hierarchical, group_order=opts.group_order,
                   dash_quota=opts.quotas or opts.surplus, ctx=ctx)
    # JSON and --long carry every selected record (in display order), even those the
    # table leaves out (users with --quotas alone, groups with priorities alone).
    ordered = [view.records[r.name] for r in laid.visible]
    data: dict[str, Any] = {
        "last_update": real(at),
        "state_last_update": None if stored.last_update_time is None
        else real(stored.last_update_time),
        "records": [record_json(r) for r in ordered],
        "layout": "hierarchical" if laid.layout.hierarchical
        else "grouporder" if opts.group_order else "flat",
        "groups": [] if ctx is None else [ctx.views[g].to_json() for g in ctx.tree.order],
        "pool_size": None if ctx is None else real(ctx.pool_size),
        "pool_size_source": None if ctx is None else ctx.pool_source,
        "requested_source": None if ctx is None else ctx.demand_source,
    }
    group_cols = laid.flags & (QUOTA_FLAGS | {SORT_KEY})
    notes = ctx.notes() if ctx is not None and group_cols else []

    def human(console) -> None:
        if long:
            lines: list[str] = []
            for rec in ordered:
                lines.extend([*record_ad(rec, at), ""])
            text = "\n".join(lines)
        else:
            text = "\n".join(render_table(laid.shown, laid.flags, at, min_last,
                                          len(view.records), laid.layout, laid.visible,
                                          notes))
        # Plain text, written as is (control characters escaped): 10,000 lines through
        # rich's wrapping cost 0.2 s.
        console.file.write(visible(text) + "\n")

    return Result(command="userprio", data=data, human=human)


def record_names(state_dir, config) -> Result:  # type: ignore[no-untyped-def]
    """Every record's name, for shell completion: read-only, a short lock wait, names
    with control characters left out (a terminal would act on them)."""
    store = open_store(state_dir, 1.0, config, write=False)
    with store.transaction(write=False) as tx:
        names = sorted(tx.load_accountant().records)
    names = [n for n in names if visible(n) == n and not any(c.isspace() for c in n)]

    def human(console) -> None:  # type: ignore[no-untyped-def]
        console.file.write("".join(f"{n}\n" for n in names))

    return Result(command="userprio", data={"names": names}, human=human)


# The command's arguments and options, in the order its help lists them (the command's
# signature names them, so that its body, the dispatch, reads at a glance).
_NamesArg = Annotated[list[str] | None, typer.Argument(
    help="Show only these records (user@domain, or a user name).")]
_ShowAllOpt = Annotated[bool, typer.Option("--all", help="Show every column.")]
_UsageOpt = Annotated[bool, typer.Option("--usage", help="Show the usage columns.")]
_PriorityOpt = Annotated[bool, typer.Option("--priority", help="Show the priority columns.")]
_AllusersOpt = Annotated[bool, typer.Option(
    "--allusers", help="Show records without recent usage too.")]
_ActivefromOpt = Annotated[str | None, typer.Option(
    "--activefrom", metavar="MM/DD/YYYY", help="Show records used since this local date.")]
_LongOpt = Annotated[bool, typer.Option("--long", "-l", help="Print one ClassAd per record.")]
_HierarchicalOpt = Annotated[bool, typer.Option(
    "--hierarchical", help="Show users under their groups (the default with "
    "groups).")]
_FlatOpt = Annotated[bool, typer.Option(
    "--flat", help="Do not show users under their groups.")]
_GrouporderOpt = Annotated[bool, typer.Option(
    "--grouporder", help="Show the groups first, then the users.")]
_GrouprollupOpt = Annotated[bool, typer.Option(
    "--grouprollup", help="Group usage figures are the sums over the subtree.")]
_QuotasOpt = Annotated[bool, typer.Option("--quotas", help="Show the group quota columns.")]
_SurplusOpt = Annotated[bool, typer.Option(
    "--surplus", help="Show the groups' surplus policy.")]
_SortkeyOpt = Annotated[bool, typer.Option(
    "--sortkey", help="Show the groups' GROUP_SORT_EXPR values.")]
_RecoverOpt = Annotated[str | None, typer.Option(
    "--recover", metavar="NAME", help="When does NAME's real priority get back "
    "to --to? (with its slots kept in use, and released now)")]
_ToOpt = Annotated[float | None, typer.Option(
    "--to", metavar="VALUE", help="The real priority --recover asks about.")]
_CompleteNamesOpt = Annotated[bool, typer.Option(
    "--complete-names", hidden=True,
    help="Print every record name, one per line (for shell completion).")]


def register(app: typer.Typer) -> None:
    @app.command("userprio")
    def userprio(
        names: _NamesArg = None,
        show_all: _ShowAllOpt = False,
        usage: _UsageOpt = False,
        priority: _PriorityOpt = False,
        allusers: _AllusersOpt = False,
        activefrom: _ActivefromOpt = None,
        long: _LongOpt = False,
        hierarchical: _HierarchicalOpt = False,
        flat: _FlatOpt = False,
        grouporder: _GrouporderOpt = False,
        grouprollup: _GrouprollupOpt = False,
        quotas: _QuotasOpt = False,
        surplus: _SurplusOpt = False,
        sortkey: _SortkeyOpt = False,
        recover: _RecoverOpt = None,
        to: _ToOpt = None,
        complete_names: _CompleteNamesOpt = False,
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        """Show user priorities and usage, as condor_userprio does."""
        if complete_names:
            run_command("userprio", as_json, lambda: record_names(state_dir, config))
            return
        if recover is not None or to is not None:
            if recover is None:
                run_command("userprio", as_json, usage_failure("--to needs --recover NAME"))
            if names or long:
                run_command("userprio", as_json,
                            usage_failure("--recover shows one record: give no NAME or "
                                          "--long"))
            run_command("userprio", as_json, lambda: build_recover(
                state_dir, now, recover or "", to, lock_timeout, config))
            return
        run_command(
            "userprio",
            as_json,
            lambda: build_userprio(
                state_dir, now, list(names or []), show_all, usage, priority, allusers,
                activefrom, long, lock_timeout, config,
                GroupOptions(_hierarchical(hierarchical, flat), grouporder, grouprollup,
                             quotas, surplus, sortkey),
            ),
        )
