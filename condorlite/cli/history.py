"""``condorlite history``: usage, priorities, matches and rejections over time.

Reads the history rows the state keeps (a row per cycle, per edit, per import and per
release; ``HISTORY_RETENTION``) between ``--since`` and ``--until`` and lays out, per
account (submitter or group record; ``history_rows`` says what a cycle row keeps):

* a chart of one figure over time (``--metric``: effective or real priority, weighted
  slots in use, accumulated usage, weight matched per cycle), for the ``--top`` accounts
  with the largest values; in the terminal when stdout is one (``--chart`` forces it,
  ``--no-chart`` drops it), and to a PNG, SVG or PDF file with ``--plot FILE``;
* a table per account: cycles seen, the figure's first, last, lowest and highest
  values, weighted slots in use at the last cycle, weight matched and jobs rejected
  over the period;
* with ``--cycles``, one line per cycle; and the edits, imports and releases in the
  period with who made them.

``--submitter`` (repeatable; ``user@domain``, or a user name, which also finds the
user's submitters in groups: ``carol`` finds ``group_physics.carol@example.org``)
and ``--group`` (the group, its subgroups and their submitters) choose the accounts
(and the edits, imports and releases shown). Nothing is written. Times are local
(``TZ``) and labelled with the zone, as in every human output.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import typer

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, LATEST_NOW, open_store, parse_when
from condorlite.cli.charts import Series, terminal_chart, write_plot
from condorlite.cli.errors import run_command
from condorlite.cli.history_rows import CYCLE_KIND, Figures
from condorlite.cli.render import Result, local_stamp, real, visible
from condorlite.errors import UsageError

#: --metric name -> (Figures field, what it is, unit for the plot's axis).
METRICS: dict[str, tuple[str, str, str]] = {
    "eup": ("eup", "effective priority", "effective priority"),
    "rup": ("rup", "real priority", "real priority"),
    "in-use": ("in_use", "weighted slots in use", "weighted slots"),
    "usage": ("usage", "accumulated weighted usage", "weighted hours"),
    "matched": ("matched", "weight matched in the cycle", "weighted slots"),
}
#: The cycle statistics a --cycles line and the JSON carry, in order.
CYCLE_FIELDS = ("matches", "rejections", "idle_jobs", "active_submitters", "pool_weight",
                "pie_spins", "duration")


@dataclass(frozen=True)
class Point:
    """One account at one cycle."""

    time: float
    figures: Figures


@dataclass
class Account:
    """One account's points over the period, oldest first."""

    name: str
    is_group: bool
    group: str
    points: list[Point]

    def values(self, metric: str) -> list[float]:
        field = METRICS[metric][0]
        scale = 1 / 3600 if metric == "usage" else 1.0  # slot-seconds -> hours
        return [getattr(p.figures, field) * scale for p in self.points]


@dataclass(frozen=True)
class Period:
    """What the history holds between ``since`` and ``until``: the cycle rows, the
    other rows (``events``), and how many cycle rows predate per-account figures."""

    since: float
    until: float
    cycles: list[dict[str, Any]]
    events: list[dict[str, Any]]
    without_accounts: int


def _wanted(name: str, group: str, names: list[str], group_filter: str | None) -> bool:
    if names:
        user = name.partition("@")[0]  # group_physics.carol for a grouped submitter
        if not any(n == name or ("@" not in n and (n == user or user.endswith("." + n)))
                   for n in names):
            return False
    if group_filter is not None:
        inside = (group, name)
        return any(g == group_filter or g.startswith(group_filter + ".") for g in inside)
    return True


def accounts(period: Period, names: list[str], group: str | None) -> list[Account]:
    """The chosen accounts with their points, in name order."""
    found: dict[str, Account] = {}
    for row in period.cycles:
        for name, raw in row["data"].get("accounts", {}).items():
            figures = Figures.from_json(raw)
            if not _wanted(name, figures.group, names, group):
                continue
            acc = found.get(name)
            if acc is None:
                acc = found[name] = Account(name, figures.is_group, figures.group, [])
            acc.points.append(Point(row["time"], figures))
    return [found[n] for n in sorted(found)]


def _event_names(row: dict[str, Any]) -> list[str] | None:
    """The accounts a history row other than a cycle concerns; None for all of them
    (``resetall``, or a row of a kind this version does not know)."""
    data = row["data"]
    if row["kind"] == "edit":
        return None if data.get("name") is None else [data["name"]]
    if row["kind"] == "import":
        return list(data.get("names", []))
    if row["kind"] == "release":
        return sorted({c["submitter"] for c in data.get("claims", [])})
    return None


def _group_of(name: str) -> str:
    user = name.partition("@")[0]
    return user.rpartition(".")[0] if "." in user else "<none>"


def events(period: Period, names: list[str], group: str | None) -> list[dict[str, Any]]:
    """The edits, imports and releases that concern a chosen account."""
    if not names and group is None:
        return period.events
    out = []
    for row in period.events:
        about = _event_names(row)
        if about is None or any(_wanted(n, _group_of(n), names, group) for n in about):
            out.append(row)
    return out


def load_period(store, since: float, until: float) -> Period:  # type: ignore[no-untyped-def]
    with store.transaction(write=False) as tx:
        rows = tx.history_between(since, until)
    cycles = [r for r in rows if r["kind"] == CYCLE_KIND]
    events = [r for r in rows if r["kind"] != CYCLE_KIND]
    missing = sum(1 for r in cycles if "accounts" not in r["data"])
    return Period(since, until, cycles, events, missing)


def charted(accs: list[Account], metric: str, top: int, groups: bool) -> list[Series]:
    """The ``top`` accounts with the largest peak of ``metric`` (ties by name); group
    records only when asked for (``--group``) or when there is nothing else."""
    pool = [a for a in accs if groups or not a.is_group] or accs
    ranked = sorted(pool, key=lambda a: (-max(a.values(metric)), a.name))[:top]
    return [Series(a.name, [p.time for p in a.points], a.values(metric))
            for a in sorted(ranked, key=lambda a: a.name)]


def cycle_json(row: dict[str, Any]) -> dict[str, Any]:
    cycle = row["data"].get("cycle", {})
    out: dict[str, Any] = {"time": real(row["time"])}
    out.update({k: cycle.get(k) for k in CYCLE_FIELDS})
    out["has_accounts"] = "accounts" in row["data"]
    return out


def point_figures(point: Point) -> dict[str, Any]:
    # group and is_group are the account's, not the point's
    return {k: v for k, v in asdict(point.figures).items() if k not in ("group", "is_group")}


def history_data(period: Period, accs: list[Account], metric: str) -> dict[str, Any]:
    return {
        "since": None if period.since <= 0 else real(period.since),
        "until": None if period.until >= LATEST_NOW else real(period.until),
        "metric": metric,
        "cycles": [cycle_json(r) for r in period.cycles],
        "cycles_without_accounts": period.without_accounts,
        "accounts": [{
            "name": a.name, "is_group": a.is_group, "group": a.group,
            "points": [{"time": real(p.time), **point_figures(p)} for p in a.points],
        } for a in accs],
        "events": [{"time": real(r["time"]), "kind": r["kind"], "who": r["who"],
                    "what": r["what"]} for r in period.events],
    }


# -- human output --------------------------------------------------------------------------


def _stamp(epoch: float) -> str:
    return local_stamp(epoch)


def _fmt(value: float) -> str:
    return f"{value:.2f}"


def account_table(accs: list[Account], metric: str) -> list[str]:
    """One line per account: cycles, the metric's first/last/min/max, in use at the
    last cycle, weight matched and jobs rejected over the period."""
    head = ("Account", "Cycles", "First", "Last", "Lowest", "Highest", "In use", "Matched",
            "Rejected")
    rows = []
    for a in accs:
        vals = a.values(metric)
        rows.append((
            visible(a.name) + (" (group)" if a.is_group else ""), str(len(a.points)),
            _fmt(vals[0]), _fmt(vals[-1]), _fmt(min(vals)), _fmt(max(vals)),
            _fmt(a.points[-1].figures.in_use),
            _fmt(sum(p.figures.matched for p in a.points)),
            str(sum(p.figures.rejected_jobs for p in a.points))))
    widths = [max(len(r[i]) for r in (head, *rows)) for i in range(len(head))]

    def line(cells: tuple[str, ...]) -> str:
        return " ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

    text = line(head)
    return [f"{METRICS[metric][1]} per account (First and Last: at the first and last "
            f"cycle that recorded it):", text, "-" * len(text), *(line(r) for r in rows)]


def cycle_lines(period: Period) -> list[str]:
    head = (f"{'Cycle':<23} {'Matches':>8} {'Rejected':>8} {'Idle jobs':>9} "
            f"{'Submitters':>10} {'Pool weight':>11}")
    lines = [head, "-" * len(head)]
    for row in period.cycles:
        c = cycle_json(row)
        lines.append(f"{_stamp(row['time']):<23} {c['matches'] or 0:>8} "
                     f"{c['rejections'] or 0:>8} {c['idle_jobs'] or 0:>9} "
                     f"{c['active_submitters'] or 0:>10} {_fmt(c['pool_weight'] or 0):>11}")
    return lines


def event_lines(period: Period) -> list[str]:
    return [f"{_stamp(r['time'])}  {visible(r['kind']):<10} {visible(r['who']):<12} "
            f"{visible(r['what'])}" for r in period.events]


def summary_line(period: Period, where: str) -> str:
    if not period.cycles:
        return f"No negotiation cycle in the history of {where} in this period."
    first, last = period.cycles[0]["time"], period.cycles[-1]["time"]
    return (f"{len(period.cycles)} cycles from {_stamp(first)} to {_stamp(last)} "
            f"in {where}")


# -- the command ---------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryOptions:
    """What to show: the period, the accounts, the figure and where to draw it."""

    since: str | None = None
    until: str | None = None
    names: tuple[str, ...] = ()
    group: str | None = None
    metric: str = "eup"
    top: int = 8
    chart: bool | None = None
    plot: Path | None = None
    cycles: bool = False


def build_history(state_dir, lock_timeout: float, config, opts: HistoryOptions  # type: ignore[no-untyped-def]
                  ) -> Result:
    if opts.metric not in METRICS:
        raise UsageError(f"--metric must be one of {', '.join(METRICS)}, not {opts.metric!r}")
    if opts.top < 1:
        raise UsageError("--top must be at least 1")
    since = 0.0 if opts.since is None else parse_when(opts.since, "--since")
    until = LATEST_NOW if opts.until is None else parse_when(opts.until, "--until")
    if until < since:
        raise UsageError("--until is before --since")
    store = open_store(state_dir, lock_timeout, config, write=False)
    period = load_period(store, since, until)
    period = replace(period, events=events(period, list(opts.names), opts.group))
    accs = accounts(period, list(opts.names), opts.group)
    lines_of = charted(accs, opts.metric, opts.top, opts.group is not None)
    title = f"{METRICS[opts.metric][1]} over time"
    if opts.plot is not None:
        if not lines_of:
            raise UsageError(f"--plot {opts.plot}: no account has figures in this period")
        write_plot(lines_of, METRICS[opts.metric][1], METRICS[opts.metric][2], opts.plot)
    data = history_data(period, accs, opts.metric)
    where = str(store.path)

    def human(console) -> None:  # type: ignore[no-untyped-def]
        out = [summary_line(period, where)]
        if period.without_accounts:
            out.append(f"({period.without_accounts} of these cycles were recorded before "
                       f"per-account figures were kept: they count in --cycles only)")
        show_chart = console.is_terminal if opts.chart is None else opts.chart
        if show_chart and lines_of:
            width = max(60, min(console.width, 160))
            color = console.is_terminal and not console.no_color
            out.extend(["", terminal_chart(lines_of, title, width, 20, color)])
        if accs:
            out.extend(["", *account_table(accs, opts.metric)])
        if opts.cycles and period.cycles:
            out.extend(["", *cycle_lines(period)])
        if period.events:
            out.extend(["", "Edits, imports and releases:", *event_lines(period)])
        if opts.plot is not None:
            out.extend(["", f"Plot written to {visible(str(opts.plot))}"])
        console.file.write("\n".join(out) + "\n")

    return Result(command="history", data=data, human=human)


def register(app: typer.Typer) -> None:
    @app.command("history")
    def history(
        since: Annotated[str | None, typer.Option(
            "--since", metavar="WHEN", help="From this time (epoch seconds or ISO 8601).")
        ] = None,
        until: Annotated[str | None, typer.Option(
            "--until", metavar="WHEN", help="Up to this time (epoch seconds or ISO 8601).")
        ] = None,
        submitter: Annotated[list[str] | None, typer.Option(
            "--submitter", help="Only this account (user@domain or a user name); "
            "repeatable.")] = None,
        group: Annotated[str | None, typer.Option(
            "--group", help="Only this group, its subgroups and their submitters.")] = None,
        metric: Annotated[str, typer.Option(
            "--metric", help="The figure to chart and summarise: eup, rup, in-use, usage "
            "or matched.")] = "eup",
        top: Annotated[int, typer.Option(
            "--top", help="Chart the N accounts with the highest values.")] = 8,
        chart: Annotated[bool | None, typer.Option(
            "--chart/--no-chart", help="Draw the terminal chart (default: when stdout is "
            "a terminal).", show_default=False)] = None,
        plot: Annotated[Path | None, typer.Option(
            "--plot", metavar="FILE", help="Write the chart to FILE (.png, .svg or .pdf; "
            "needs the plot extra).", dir_okay=False)] = None,
        cycles: Annotated[bool, typer.Option(
            "--cycles", help="List every cycle of the period.")] = False,
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        """Show priorities, usage, matches and rejections over time (the history).

        Reads the rows the state keeps for HISTORY_RETENTION (one per cycle, edit,
        import and release): a chart of --metric per account (in the terminal when
        stdout is one; --plot FILE writes PNG, SVG or PDF and needs matplotlib,
        the "plot" extra), a table per account, the edits, and with --cycles one
        line per cycle. Times are local (TZ), labelled."""
        opts = HistoryOptions(since, until, tuple(submitter or ()), group, metric, top,
                              chart, plot, cycles)
        run_command("history", as_json,
                    lambda: build_history(state_dir, lock_timeout, config, opts))
