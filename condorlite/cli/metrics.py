"""``condorlite metrics``: the accountant and the last cycle for Prometheus.

Prints (or writes with ``--output FILE``, for node_exporter's textfile collector) the
Prometheus text exposition format, made by the official client library
(``prometheus_client``: its escaping of label values and its number format; its parser
reads the output back in the tests). Every metric is a gauge (accumulated usage can be
reset by an admin, so it is not a counter), named ``condorlite_<subject>_<what>[_unit]``:

* per submitter (label ``submitter``, and ``group``, "<none>" outside groups; control
  characters in a name are written escaped, ``\\x1b``, as in every output): the
  records ``userprio`` shows (used in the 24 hours before ``--now``; ``--allusers`` for
  every record), as an update at ``--now`` leaves them: ``effective_priority``,
  ``real_priority``, ``priority_factor``, ``resources_in_use`` (slots),
  ``weighted_resources_in_use``, ``weighted_usage_seconds`` (accumulated, weighted
  slot-seconds); and from the last cycle's history row ``last_cycle_matched_weight``
  and ``last_cycle_rejected_jobs`` (0 when the row holds no figures for it);
* per group (label ``group``), when GROUP_NAMES is set: ``quota`` (effective),
  ``allocated``, ``requested`` and ``weighted_usage`` as ``userprio --quotas`` works
  them out from the last cycle;
* the last cycle: ``timestamp_seconds``, ``duration_seconds``, ``matches``,
  ``rejections``, ``pie_spins``, ``idle_jobs``, ``active_submitters``, ``slots``,
  ``pool_weight``; and ``condorlite_accountant_last_update_timestamp_seconds``.

Families are in a fixed order and samples in name order, so the same state and
``--now`` give the same bytes. Nothing in the state is written; ``--output`` goes to a
temporary file renamed into place, so a collector never reads half a file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, now_or_clock, open_store
from condorlite.cli.errors import run_command
from condorlite.cli.history_rows import CYCLE_KIND
from condorlite.cli.outfiles import OutFile, write_all
from condorlite.cli.render import Result, visible
from condorlite.cli.userprio import DAY, in_use_counts_as_used, select_records
from condorlite.cli.userprio_groups import group_context
from condorlite.core.accounting import (
    MIN_PRIORITY,
    effective_priority,
    has_groups,
    update_priorities,
)

PREFIX = "condorlite"
#: (metric suffix, help, Record -> value) for the per-submitter gauges.
SUBMITTER_GAUGES = (
    ("effective_priority", "Effective user priority (EUP = max(0.5, RUP) x factor).",
     effective_priority),
    ("real_priority", "Real user priority (RUP).", lambda r: max(MIN_PRIORITY, r.priority)),
    ("priority_factor", "Priority factor.", lambda r: r.priority_factor),
    ("resources_in_use", "Slots in use.", lambda r: r.resources_used),
    ("weighted_resources_in_use", "Weighted slots in use.",
     lambda r: r.weighted_resources_used),
    ("weighted_usage_seconds", "Accumulated weighted usage, slot-seconds.",
     lambda r: r.weighted_accumulated_usage),
)
#: (cycle statistic, metric suffix, help) for the last cycle's gauges.
CYCLE_GAUGES = (
    ("time", "timestamp_seconds", "When the last negotiation cycle ran (epoch seconds)."),
    ("duration", "duration_seconds", "How long the last cycle's command took."),
    ("matches", "matches", "Matches made by the last cycle."),
    ("rejections", "rejections", "Jobs rejected by the last cycle."),
    ("pie_spins", "pie_spins", "Pie spins of the last cycle."),
    ("idle_jobs", "idle_jobs", "Idle jobs the last cycle read."),
    ("active_submitters", "active_submitters", "Submitters with idle jobs in the last cycle."),
    ("slots", "slots", "Slot ads the last cycle read."),
    ("pool_weight", "pool_weight", "Total slot weight of the pool in the last cycle."),
)
GROUP_GAUGES = (
    ("effective_quota", "quota", "Effective group quota (weighted slots)."),
    ("allocated", "allocated", "Weighted slots the group was allocated."),
    ("requested", "requested", "Weighted slots the group requested."),
    ("usage", "weighted_usage", "Weighted slots the group used."),
)


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None


def _labels(rec) -> list[str]:  # type: ignore[no-untyped-def]
    # A name from an old state may hold control characters (a job ad's AccountingGroup
    # before such names were refused): the label holds them escaped, as every other
    # output does, so that printing the text to a terminal cannot drive it.
    return [visible(rec.name), visible(rec.accounting_group)]


class _Collector:
    """The families of one ``metrics`` run, built from what ``build_metrics`` read."""

    def __init__(self, records, accounts, cycle, groups, last_update) -> None:  # type: ignore[no-untyped-def]
        self.records, self.accounts, self.cycle = records, accounts, cycle
        self.groups, self.last_update = groups, last_update

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        labels = ["submitter", "group"]
        for suffix, text, value in SUBMITTER_GAUGES:
            fam = GaugeMetricFamily(f"{PREFIX}_submitter_{suffix}", text, labels=labels)
            for rec in self.records:
                fam.add_metric(_labels(rec), float(value(rec)))
            yield fam
        for key, suffix, text in (("matched", "last_cycle_matched_weight",
                                   "Weight matched to the submitter by the last cycle."),
                                  ("rejected_jobs", "last_cycle_rejected_jobs",
                                   "The submitter's jobs the last cycle rejected.")):
            fam = GaugeMetricFamily(f"{PREFIX}_submitter_{suffix}", text, labels=labels)
            for rec in self.records:
                got = _number(self.accounts.get(rec.name, {}).get(key))
                fam.add_metric(_labels(rec), got or 0.0)
            yield fam
        for key, suffix, text in GROUP_GAUGES:
            fam = GaugeMetricFamily(f"{PREFIX}_group_{suffix}", text, labels=["group"])
            for view in self.groups:
                fam.add_metric([visible(view["name"])], float(view[key]))
            yield fam
        for key, suffix, text in CYCLE_GAUGES:
            got = _number(self.cycle.get(key))
            if got is not None:
                yield GaugeMetricFamily(f"{PREFIX}_cycle_{suffix}", text, value=got)
        if self.last_update is not None:
            yield GaugeMetricFamily(f"{PREFIX}_accountant_last_update_timestamp_seconds",
                                    "When the accountant was last updated (epoch seconds).",
                                    value=self.last_update)


def exposition(collector: _Collector) -> tuple[str, list[dict[str, Any]]]:
    """The text format, and the same samples as JSON-ready dicts."""
    from prometheus_client import CollectorRegistry, generate_latest

    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    samples = [{"name": s.name, "labels": dict(sorted(s.labels.items())), "value": s.value,
                "type": fam.type, "help": fam.documentation}
               for fam in collector.collect() for s in fam.samples]
    return generate_latest(registry).decode("utf-8"), samples


def build_metrics(state_dir, now, allusers: bool, output: Path | None,  # type: ignore[no-untyped-def]
                  lock_timeout: float, config) -> Result:
    at = now_or_clock(now)
    store = open_store(state_dir, lock_timeout, config, write=False)
    with store.transaction(write=False) as tx:
        stored = tx.load_accountant()
        last = tx.last_history(CYCLE_KIND)
    policy = store.policy
    view = in_use_counts_as_used(update_priorities(stored, policy, at), at)
    chosen = select_records(view.records, [], -1.0 if allusers else at - DAY)
    records = sorted((r for r in chosen if not r.is_accounting_group), key=lambda r: r.name)
    data = last["data"] if last is not None and isinstance(last.get("data"), dict) else {}
    cycle = dict(data.get("cycle") or {}) if isinstance(data.get("cycle"), dict) else {}
    accounts = data.get("accounts") if isinstance(data.get("accounts"), dict) else {}
    groups = []
    if has_groups(policy):
        ctx = group_context(policy, view.records, last)
        groups = [ctx.views[g].to_json() for g in sorted(ctx.tree.order)]
    text, samples = exposition(_Collector(records, accounts, cycle, groups,
                                          stored.last_update_time))
    if output is not None:
        write_all([OutFile(output, text)], f"--output {output}")

    def human(console) -> None:  # type: ignore[no-untyped-def]
        if output is None:
            console.file.write(text)
        else:
            console.file.write(f"Wrote {len(samples)} samples to {output}\n")

    return Result(command="metrics", data={"time": at, "samples": samples}, human=human)


def register(app: typer.Typer) -> None:
    @app.command("metrics")
    def metrics(
        allusers: Annotated[bool, typer.Option(
            "--allusers", help="Every record, not only those used in the last 24 hours.")
        ] = False,
        output: Annotated[Path | None, typer.Option(
            "--output", "-o", metavar="FILE", dir_okay=False,
            help="Write to FILE (atomically, for node_exporter's textfile collector) "
            "instead of stdout.")] = None,
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        """Print the accountant and the last cycle as Prometheus metrics.

        The text exposition format (prometheus_client's): per-submitter priorities,
        factor, slots in use and usage, per-group quota and allocation, and the last
        cycle's duration, matches, rejections and pie spins. Point node_exporter's
        textfile collector at --output FILE, or serve stdout from cron."""
        run_command("metrics", as_json,
                    lambda: build_metrics(state_dir, now, allusers, output, lock_timeout,
                                          config))
