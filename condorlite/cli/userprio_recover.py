"""``condorlite userprio --recover NAME --to VALUE``: when a priority gets back to a value.

The record is taken as an update at ``--now`` would leave it (as ``userprio`` shows
it); its real priority then follows ``core.accounting.recovery``'s curve under the current
``PRIORITY_HALFLIFE``, in two cases: its weighted slots in use stay in use, or they are
all released now. For each, the time until the real priority reaches ``--to`` (a real
priority; the effective one is that times the record's factor), and a chart of both
curves over that time (at least one half-life; three when neither case gets there).
"""

from __future__ import annotations

from typing import Any

from condorlite.cli._state import now_or_clock, open_store
from condorlite.cli.charts import Series, terminal_chart
from condorlite.cli.render import Result, local_stamp, visible
from condorlite.core.accounting import MIN_PRIORITY, Record, update_priorities
from condorlite.core.accounting.recovery import Recovery, curve, recovery
from condorlite.errors import DomainError, UsageError

#: Points of each curve in the JSON and the chart.
CURVE_POINTS = 61


def _find(records: dict[str, Record], name: str) -> Record:
    if name in records:
        return records[name]
    hits = [r for r in records.values() if "@" not in name and r.name.partition("@")[0] == name]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise UsageError(f"--recover {name}: more than one record has that user name: "
                         f"{', '.join(sorted(visible(h.name) for h in hits))}")
    raise DomainError(f"--recover {visible(name)}: no such record in the accountant",
                      hint="condorlite userprio --allusers lists every record")


def _span(answers: list[Recovery], halflife: float) -> float:
    finite = [a.seconds for a in answers if a.seconds is not None and a.seconds > 0]
    return max(halflife, 1.2 * max(finite)) if finite else 3 * halflife


def _when(answer: Recovery, at: float) -> dict[str, Any]:
    return {"seconds": answer.seconds,
            "at": None if answer.seconds is None else at + answer.seconds,
            "rises_past_seconds": answer.rises_past}


def duration(seconds: float) -> str:
    """``3d 04:05:06`` style, as condor_userprio prints times."""
    whole = round(seconds)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{days}d {hours:02d}:{minutes:02d}:{secs:02d}" if days else \
        f"{hours:02d}:{minutes:02d}:{secs:02d}"


def _sentence(case: str, answer: Recovery, at: float) -> str:
    if answer.seconds is None:
        return (f"  {case}: never; it tends to {answer.usage:.2f}, its weighted usage, "
                f"and stays above {answer.target:g}")
    if answer.seconds == 0:
        text = f"  {case}: now (it is at or under {answer.target:g} already)"
        if answer.rises_past is not None:
            text += (f", but it rises towards {answer.usage:g}, its weighted usage, and "
                     f"passes {answer.target:g} in {duration(answer.rises_past)}")
        return text
    stamp = local_stamp(at + answer.seconds)
    return f"  {case}: in {duration(answer.seconds)}, at {stamp}"


def build_recover(state_dir, now, name: str, target: float | None, lock_timeout: float,  # type: ignore[no-untyped-def]
                  config) -> Result:
    if target is None:
        raise UsageError("--recover needs --to VALUE (the real priority to reach)")
    if not target >= MIN_PRIORITY or target == float("inf"):
        raise UsageError(f"--to must be a real priority >= {MIN_PRIORITY}, not {target}")
    at = now_or_clock(now)
    store = open_store(state_dir, lock_timeout, config, write=False)
    with store.transaction(write=False) as tx:
        stored = tx.load_accountant()
    policy = store.policy
    rec = _find(update_priorities(stored, policy, at).records, name)
    halflife = policy.priority_halflife
    usage = rec.weighted_resources_used
    keeps = recovery(rec.priority, usage, halflife, target)
    ends = recovery(rec.priority, 0.0, halflife, target)
    span = _span([keeps, ends], halflife)
    kept = curve(rec.priority, usage, halflife, span, CURVE_POINTS)
    ended = curve(rec.priority, 0.0, halflife, span, CURVE_POINTS)
    data = {
        "name": rec.name, "time": at, "real_priority": keeps.rup,
        "effective_priority": keeps.rup * rec.priority_factor,
        "priority_factor": rec.priority_factor, "weighted_in_use": usage,
        "halflife": halflife, "target": target,
        "target_effective": target * rec.priority_factor,
        "keeps_usage": _when(keeps, at), "usage_ends": _when(ends, at),
        "curve": [{"seconds": k.seconds, "keeps_usage": k.rup, "usage_ends": e.rup}
                  for k, e in zip(kept, ended, strict=True)],
    }

    def human(console) -> None:  # type: ignore[no-untyped-def]
        lines = [
            f"{visible(rec.name)}: real priority {keeps.rup:.2f} (effective "
            f"{keeps.rup * rec.priority_factor:.2f} at factor {rec.priority_factor:g}), "
            f"{usage:g} weighted slots in use, half-life {duration(halflife)}.",
            f"Real priority {target:g} (effective {target * rec.priority_factor:g}) is "
            f"reached:",
            _sentence(f"if its {usage:g} weighted slots stay in use", keeps, at),
            _sentence("if they are all released now", ends, at),
        ]
        if console.is_terminal:
            series = [Series("slots stay in use", [p.seconds for p in kept],
                             [p.rup for p in kept]),
                      Series("released now", [p.seconds for p in ended],
                             [p.rup for p in ended])]
            width = max(60, min(console.width, 120))
            color = not console.no_color
            lines.extend(["", terminal_chart(series, "real priority from now", width, 16,
                                             color, epochs=False)])
        console.file.write("\n".join(lines) + "\n")

    return Result(command="userprio", data={"recover": data}, human=human)
