"""``condorlite replay``: cycles over a period on a copy of the state, with and without
a change, side by side.

``--from T1 --to T2 --every S`` runs a negotiation cycle at T1, T1 + S, ... up to T2
(at most ``MAX_CYCLES``) on a private copy of the state (SQLite's backup of the
database, in a temporary directory removed afterwards): the real state is only read.
Every cycle reads the same ads (``--slots``/``--jobs``, else the config's SLOTS/JOBS,
resolved once against the real config): the queue and the pool as they are now, held
still, so jobs matched by one cycle keep their claims (their ads do not change) and
their usage accrues, as if they ran for the whole period. T1 must not be before the
state's last update (a cycle at an earlier time charges nothing; see ``accounting``).

With ``--what-if CHANGE`` (as ``negotiate --what-if``) a second copy runs the same
cycles with the knobs in a changed config (written beside the copy) and the edits made
at T1, just before the first cycle; the output then puts the two side by side.

Each copy's history then holds, per cycle, every account's figures after it (real and
effective priority, factor, weighted slots in use, accumulated usage, weight matched,
jobs rejected; ``history_rows``) and the cycle's statistics: ``replay`` reads them back
as ``history`` does. The human output is a chart of ``--metric`` over time (both runs;
``history``'s metrics) and a table of each submitter's first and last values and the
weight matched over the period; ``--json`` has every point.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from condorlite.cli import negotiate as negotiate_cmd
from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, ad_paths, open_store, parse_when
from condorlite.cli.charts import Series, terminal_chart, write_plot
from condorlite.cli.errors import run_command
from condorlite.cli.history import (
    METRICS,
    Account,
    accounts,
    cycle_json,
    load_period,
    point_figures,
)
from condorlite.cli.negotiate_whatif import WhatIf, apply_edits, parse_what_ifs
from condorlite.cli.render import Result, local_stamp, visible
from condorlite.cli.status import JobsOpt, SlotsOpt
from condorlite.core import accounting as acct
from condorlite.errors import CondorliteError, UsageError
from condorlite.store.config import config_text_with, load_policy

#: The longest replay: a year of 5-minute cycles would be 105,120.
MAX_CYCLES = 10_000
@dataclass
class Run:
    """One side of a replay: its label, the cycles' statistics and each account's
    points, read back from the copy's history (``history.accounts``: the figures after
    every cycle, every record not at rest, not only the submitters that negotiated)."""

    label: str
    cycles: list[dict[str, Any]] = field(default_factory=list)
    accounts: list[Account] = field(default_factory=list)

    def series(self, metric: str) -> dict[str, tuple[list[float], list[float]]]:
        """Submitter -> (times, values) of one figure, in time order (users only)."""
        return {a.name: ([p.time for p in a.points], a.values(metric))
                for a in self.accounts if not a.is_group}

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "cycles": self.cycles,
                "accounts": [{"name": a.name, "is_group": a.is_group, "group": a.group,
                              "points": [{"time": p.time, **point_figures(p)}
                                         for p in a.points]} for a in self.accounts]}


def _times(start: float, end: float, every: float) -> list[float]:
    if every <= 0:
        raise UsageError("--every must be a positive number of seconds")
    if end < start:
        raise UsageError("--to is before --from")
    count = int((end - start) // every) + 1
    if count > MAX_CYCLES:
        raise UsageError(f"--from/--to/--every make {count} cycles; at most {MAX_CYCLES}")
    return [start + i * every for i in range(count)]


def _copy(store, folder: Path) -> Path:  # type: ignore[no-untyped-def]
    state = folder / "state"
    state.mkdir(mode=0o700)
    store.copy_to(state)
    return state


def _apply_edits(what: WhatIf, state: Path, config: Path, at: float, lock: float) -> None:
    """The edits of ``what`` made in the copy at ``at``, as ``negotiate --what-if``
    makes them (``negotiate_whatif.apply_edits``: priorities brought up to ``at``
    first, as an edit command does)."""
    store = open_store(state, lock, config)
    edit = apply_edits(what, store.policy, at)
    if edit is None:
        return
    with store.transaction(write=True) as tx:
        tx.save_accountant(edit(acct.update_priorities(tx.load_accountant(), store.policy,
                                                       at)))


def _run(label: str, state: Path, config: Path, slots: list[Any], jobs: list[Any],
         times: list[float], lock: float) -> Run:
    for at in times:
        negotiate_cmd.run_cycle(slots, jobs, state, at, lock, config)
    period = load_period(open_store(state, lock, config, write=False), times[0], times[-1])
    return Run(label, [cycle_json(r) for r in period.cycles], accounts(period, [], None))


def replay_data(runs: list[Run], what: WhatIf | None, metric: str) -> dict[str, Any]:
    return {"what_if": None if what is None else what.texts, "metric": metric,
            "runs": [r.to_json() for r in runs]}


def _summary(runs: list[Run], metric: str) -> list[str]:
    """Per submitter and run: the metric at the first and last cycle, and the weight
    matched over the period."""
    names = sorted({a.name for r in runs for a in r.accounts if not a.is_group})
    head = ["Submitter", *(f"{metric} first -> last ({r.label})" for r in runs),
            *(f"matched in all ({r.label})" for r in runs)]
    rows = [head]
    for name in names:
        cells = [visible(name)]
        for r in runs:
            acc = next((a for a in r.accounts if a.name == name), None)
            vals = [] if acc is None else acc.values(metric)
            cells.append("-" if not vals else f"{vals[0]:.6g} -> {vals[-1]:.6g}")
        for r in runs:
            acc = next((a for a in r.accounts if a.name == name), None)
            total = 0.0 if acc is None else sum(acc.values("matched"))
            cells.append(f"{total:g}")
        rows.append(cells)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return [f"{METRICS[metric][1]} at the first and last cycle, weight matched over all:",
            *("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                      for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in rows)]


def _chart_series(runs: list[Run], metric: str, top: int) -> list[Series]:
    out: list[Series] = []
    first = runs[0].series(metric)
    ranked = sorted(first, key=lambda n: (-max(first[n][1]), n))[:top]
    for run in runs:
        data = run.series(metric)
        for name in sorted(ranked):
            if name in data:
                label = name if len(runs) == 1 else f"{name} ({run.label})"
                out.append(Series(label, *data[name]))
    return out


@dataclass(frozen=True)
class ReplayOptions:
    start: str
    end: str
    every: float
    what_if: tuple[str, ...] = ()
    metric: str = "eup"
    top: int = 4
    chart: bool | None = None
    plot: Path | None = None


def build_replay(slots, jobs, state_dir, lock: float, config,  # type: ignore[no-untyped-def]
                 opts: ReplayOptions) -> Result:
    if opts.metric not in METRICS:
        raise UsageError(f"--metric must be one of {', '.join(METRICS)}, not {opts.metric!r}")
    times = _times(parse_when(opts.start, "--from"), parse_when(opts.end, "--to"), opts.every)
    what = parse_what_ifs(list(opts.what_if)) if opts.what_if else None
    store = open_store(state_dir, lock, config, write=False)
    with store.transaction(write=False) as tx:
        last = tx.load_accountant().last_update_time
    if last is not None and times[0] < last:
        raise UsageError(f"--from is before the state's last update ({local_stamp(last)}): "
                         "a cycle at an earlier time charges nothing")
    policy = store.policy
    slot_paths = ad_paths(slots, policy.slots, store.config_path, "slot", "--slots")
    job_paths = ad_paths(jobs, policy.jobs, store.config_path, "job", "--jobs")
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="condorlite-replay-") as tmp:
        base = Path(tmp) / "base"
        base.mkdir(mode=0o700)
        runs.append(_run("as is", _copy(store, base), store.config_path, slot_paths,
                         job_paths, times, lock))
        if what is not None:
            side = Path(tmp) / "what-if"
            side.mkdir(mode=0o700)
            state = _copy(store, side)
            changed = side / "condorlite.toml"
            try:
                changed.write_text(config_text_with(store.config_path, what.knobs))
                load_policy(changed)
            except CondorliteError as exc:
                raise UsageError(f"--what-if: {exc.message}") from None
            _apply_edits(what, state, changed, times[0], lock)
            runs.append(_run("what if", state, changed, slot_paths, job_paths, times, lock))
        shutil.rmtree(tmp, ignore_errors=True)
    series = _chart_series(runs, opts.metric, opts.top)
    if opts.plot is not None:
        write_plot(series, f"{METRICS[opts.metric][1]} in the replay", METRICS[opts.metric][1],
                   opts.plot)
    data = replay_data(runs, what, opts.metric)

    def human(console) -> None:  # type: ignore[no-untyped-def]
        out = [f"Replay of {len(times)} cycles from {local_stamp(times[0])} to "
               f"{local_stamp(times[-1])}, every {opts.every:g} s, on a copy of "
               f"{visible(str(store.path))} (nothing written to it)"]
        if what is not None:
            out.append(f"What if: {'; '.join(visible(t) for t in what.texts)}")
        show = console.is_terminal if opts.chart is None else opts.chart
        if show and series:
            width = max(60, min(console.width, 160))
            out += ["", terminal_chart(series, f"{METRICS[opts.metric][1]} over the replay",
                                       width, 20, console.is_terminal and not console.no_color)]
        out += ["", *_summary(runs, opts.metric)]
        console.file.write("\n".join(out) + "\n")

    return Result(command="replay", data=data, human=human)


def register(app: typer.Typer) -> None:
    @app.command("replay")
    def replay(
        start: Annotated[str, typer.Option("--from", metavar="WHEN",
                                           help="Time of the first cycle.")],
        end: Annotated[str, typer.Option("--to", metavar="WHEN",
                                         help="No cycle after this time.")],
        every: Annotated[float, typer.Option("--every", metavar="SECONDS",
                                             help="Seconds between cycles.")] = 300.0,
        slots: SlotsOpt = None,
        jobs: JobsOpt = None,
        what_if: Annotated[list[str] | None, typer.Option(
            "--what-if", metavar="CHANGE",
            help="Replay a second copy after CHANGE (an edit or KNOB=VALUE; repeatable) "
            "and show both.")] = None,
        metric: Annotated[str, typer.Option(
            "--metric", help="Chart and summarise: eup, rup, in-use, usage or matched.")
        ] = "eup",
        top: Annotated[int, typer.Option("--top", help="Chart the N submitters with the "
                                         "highest values.")] = 4,
        chart: Annotated[bool | None, typer.Option(
            "--chart/--no-chart", help="Draw the terminal chart (default: when stdout is "
            "a terminal).", show_default=False)] = None,
        plot: Annotated[Path | None, typer.Option(
            "--plot", metavar="FILE", dir_okay=False,
            help="Write the chart to FILE (.png, .svg or .pdf; needs matplotlib).")] = None,
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        """Replay negotiation cycles over a period on a copy of the state.

        The same ads every cycle, from --from to --to every --every seconds; with
        --what-if a second copy replays after the change, side by side. The state
        itself is only read."""
        opts = ReplayOptions(start, end, every, tuple(what_if or ()), metric, top, chart,
                             plot)
        run_command("replay", as_json,
                    lambda: build_replay(slots, jobs, state_dir, lock_timeout, config, opts))
