"""The human output of ``condorlite negotiate``: plain text an HTCondor admin can scan.

Sections, in order (an empty section is left out, except Matches):

* a header in the spirit of the NegotiatorLog's cycle summary: the time, the pool
  (slot ads, total slot weight), idle jobs, active submitters, autoclusters, then the
  work done (jobs considered, matches, rejections, pie spins); "(dry run)" when
  nothing was written;
* ``Matches``: Job, Submitter, Slot, Weight, Reason (HTCondor's PreemptState wording)
  and the user preempted, in the order the cycle made them;
* ``Rejections``: Job, Submitter, Reason, in submitter order then queue order;
* ``Submitters``: as condor_userprio orders them for negotiation (best EUP first):
  EffectivePriority, with GROUP_NAMES the Group and the Group share (of the group's
  pie, by 1/EUP), the Pool share (group share x the group's effective quota / the
  pool's weight; the share itself without groups), Limit (first pie spin), Usage
  (weighted slots in use after the cycle), Matched (weight matched this cycle) and
  jobs matched of idle;
* ``Groups`` (with GROUP_NAMES), in the tree's breadth-first order: Group, Quota
  (effective), Config (the configured figure; "(frac)" for a dynamic one), Surplus
  (yes/no), Requested (weighted running + idle), Allocated (first round), Usage
  (weighted, at the start and after the cycle), Matched (by its turns), Turns, and "at
  quota" when it was held at a quota that refuses surplus;
* ``Claims released`` and ``Problems`` (ads skipped);
* with ``--explain``, the job's explanation.

Durations are never printed here (they are wall-clock, see ``negotiate``), so the text
depends only on the state, the ads, the config and ``--now``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from condorlite.cli.render import local_stamp, plain, print_text

if TYPE_CHECKING:
    from rich.console import Console


def _n(value: float | int | None) -> str:
    """A weight or usage: integers bare, other numbers with two decimals."""
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """Columns padded to their widest cell; columns in ``right`` right-aligned; two
    spaces before each column, trailing spaces dropped.

    Each line is one ``str.format`` call (a cycle can print tens of thousands of match
    lines); a ``<w``/``>w`` field pads exactly as ``ljust(w)``/``rjust(w)``."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(headers)
    widths = [max([len(h), *map(len, column)])
              for h, column in zip(headers, columns, strict=True)]
    fields = [f"{{:{'>' if i in right else '<'}{w}}}" if w else "{}"
              for i, w in enumerate(widths)]
    fmt = "  " + "  ".join(fields)
    return [fmt.format(*cells).rstrip() for cells in [headers, *rows]]


def _section(title: str, body: list[str]) -> list[str]:
    return ["", title, *body]


def _header(cycle: dict[str, Any]) -> list[str]:
    stamp = local_stamp(cycle["time"])
    dry = "  (dry run: nothing written)" if cycle.get("dry_run") else ""
    return [
        f"Negotiation cycle at {stamp} ({plain(cycle['time'])}){dry}",
        f"  pool: {cycle['slots']} slot ads, total weight {_n(cycle['pool_weight'])}; "
        f"{cycle['idle_jobs']} idle jobs from {cycle['active_submitters']} submitters "
        f"in {cycle['autoclusters']} autoclusters",
        f"  jobs considered {cycle['jobs_considered']}, matches {cycle['matches']}, "
        f"rejections {cycle['rejections']}, pie spins {cycle['pie_spins']}; "
        f"claims released {cycle['claims_released']}, live {cycle['claims_live']}",
    ]


def _matches(data: dict[str, Any]) -> list[str]:
    # each distinct weight formatted once (a cycle's tens of thousands of matches have a
    # few weights; equal numbers, whatever their type or sign, print alike in ``_n``)
    shown: dict[float, str] = {}
    rows = [[m["job"], m["submitter"], m["slot"],
             shown.get(m["weight"]) or shown.setdefault(m["weight"], _n(m["weight"])),
             m["reason"], m["preempting"] or ""] for m in data["matches"]]
    if not rows:
        return ["", "Matches (0)", "  none"]
    return _section(f"Matches ({len(rows)})",
                    _table(["Job", "Submitter", "Slot", "Weight", "Reason", "Preempting"],
                           rows, {3}))


def _rejections(data: dict[str, Any]) -> list[str]:
    rows = [[r["job"], r["submitter"] or "", r["reason"]] for r in data["rejections"]]
    if not rows:
        return []
    return _section(f"Rejections ({len(rows)})",
                    _table(["Job", "Submitter", "Reason"], rows, set()))


def _submitters(data: dict[str, Any]) -> list[str]:
    grouped = bool(data.get("groups"))
    rows = [[s["name"], f"{s['effective_priority']:.2f}",
             *([s["group"], f"{100 * s['share']:.2f}%"] if grouped else []),
             f"{100 * s['pool_share']:.2f}%", f"{s['limit']:.2f}", _n(s["usage"]),
             _n(s["matched"]), f"{s['matched_jobs']}/{s['idle_jobs']}"]
            for s in data["submitters"]]
    if not rows:
        return []
    heads = ["Submitter", "EffectivePriority", *(["Group", "Group share"] if grouped else []),
             "Pool share", "Limit", "Usage", "Matched", "Jobs matched/idle"]
    right = set(range(1, len(heads))) - ({2} if grouped else set())
    return _section("Submitters (negotiation order)", _table(heads, rows, right))


def _groups(data: dict[str, Any]) -> list[str]:
    rows = []
    for g in data.get("groups", []):
        config = _n(g["config_quota"]) + ("" if g["is_static"] else " (frac)")
        if g["name"] == "<none>":
            config = "-"
        rows.append([("  " * g["depth"]) + g["name"], _n(g["effective_quota"]), config,
                     "yes" if g["accept_surplus"] else "no", _n(g["requested"]),
                     _n(g["allocated"]), f"{_n(g['usage'])} -> {_n(g['usage_after'])}",
                     _n(g["matched"]), str(g["turns"]), "at quota" if g["at_quota"] else ""])
    if not rows:
        return []
    heads = ["Group", "Quota", "Config", "Surplus", "Requested", "Allocated", "Usage",
             "Matched", "Turns", ""]
    return _section("Groups (quota, allocation, usage and demand in weighted slots)",
                    _table(heads, rows, {1, 4, 5, 6, 7, 8}))


def _released(data: dict[str, Any]) -> list[str]:
    rows = [[r["slot"], r["job"] or "", r["submitter"], r["reason"]] for r in data["released"]]
    if not rows:
        return []
    return _section(f"Claims released ({len(rows)})",
                    _table(["Slot", "Job", "Submitter", "Reason"], rows, set()))


def _problems(data: dict[str, Any]) -> list[str]:
    if not data["problems"]:
        return []
    out = ["", f"Problems: {len(data['problems'])} ads skipped"]
    out += [f"  {p['source']} ad {p['ad']} ({p['kind']}): {p['problem']}"
            for p in data["problems"]]
    return out


def explain_lines(ex: dict[str, Any]) -> list[str]:
    """The ``--explain`` section."""
    if ex["status"] == "unknown":
        return ["", f"Job {ex['job']}: unknown ({ex['message']})"]
    cluster = "-" if ex["autocluster"] is None else str(ex["autocluster"])
    out = ["", f"Job {ex['job']} ({ex['submitter']}): {ex['status']}, autocluster {cluster}"]
    fig = ex["submitter_figures"]
    if fig is not None:
        out.append(f"  submitter: effective priority {fig['effective_priority']:.2f}, "
                   f"share {100 * fig['share']:.2f}%, limit {fig['limit']:.2f}, "
                   f"matched {_n(fig['matched'])} ({fig['matched_jobs']} of "
                   f"{fig['idle_jobs']} idle jobs)")
    else:
        out.append("  submitter: not negotiated this cycle")
    out.append(f"  slots: {ex['slots']} in the input; the job's Requirements hold on "
               f"{ex['job_requirements_hold']}; both Requirements hold on "
               f"{ex['matching_slots']}")
    if ex["failing"]:
        out.append("  first clause that fails, per slot:")
        out += [f"    {f['side']:<4}  {f['clause']}: {f['value']} on {f['slots']} "
                f"slot{'' if f['slots'] == 1 else 's'}" for f in ex["failing"]]
    group = ex.get("group")
    if group is not None:
        surplus = "accepts" if group["accept_surplus"] else "does not accept"
        out.append(f"  group {group['name']}: quota {_n(group['effective_quota'])}, "
                   f"requested {_n(group['requested'])}, allocated {_n(group['allocated'])}, "
                   f"usage {_n(group['usage'])} -> {_n(group['usage_after'])}; "
                   f"{surplus} surplus")
    out.append(f"  outcome: {ex['outcome']}")
    if ex.get("detail"):
        out.append(f"  negotiator: {ex['detail']}")
    return out + held_lines(ex.get("held"), ex["submitter"])


def held_lines(held: dict[str, Any] | None, submitter: str) -> list[str]:
    """Who holds the slots the job matches, and what would free one."""
    if held is None:
        return []
    whole = "all" if held["slots"] == held["matching"] else f"{held['slots']} of"
    out = [f"  held: {whole} the {held['matching']} slots that match it both ways are "
           f"claimed after the cycle:"]
    for h in held["by"]:
        eup = "-" if h["effective_priority"] is None else f"{h['effective_priority']:.2f}"
        note = (" (this submitter: never preempted by its own jobs)"
                if h["submitter"] == submitter
                else " (worse than this submitter's)" if h["worse"] else "")
        out.append(f"    {h['submitter']}: {h['slots']} slot{'' if h['slots'] == 1 else 's'}"
                   f", effective priority {eup}{note}")
    worse = sum(h["slots"] for h in held["by"] if h["worse"])
    if not worse:
        out.append("  to free one: no holder has a worse (higher) effective priority, so "
                   "priority preemption could not take one; a holder's jobs must end, or a "
                   "slot's Rank must prefer this job")
    elif not held["priority_preemption"]:
        out.append("  to free one: priority preemption is off (PREEMPTION_REQUIREMENTS = "
                   "False); a policy such as RemoteUserPrio > SubmitterUserPrio * 1.2 would "
                   f"let {submitter} preempt the {worse} slot(s) held by worse "
                   "priorities; else a slot whose Rank prefers this job, or a holder's "
                   "jobs ending")
    elif worse:
        out.append(f"  to free one: {worse} slot(s) are held by worse priorities, but "
                   f"PREEMPTION_REQUIREMENTS ({held['preemption_requirements']}) was not "
                   "true for them this cycle")
    return out


def _counted(data: dict[str, Any]) -> list[str]:
    """``--summary``'s stand-in for the match, rejection and release lists: how many,
    and the rejections by reason, most frequent first."""
    reasons: dict[str, int] = {}
    for r in data["rejections"]:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    lines = ["", f"Matches: {len(data['matches'])}; rejections: {len(data['rejections'])}; "
             f"claims released: {len(data['released'])} (listed without --summary)"]
    for reason, count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  {count:>6}  rejected: {reason}")
    return lines


def draw(console: Console, data: dict[str, Any], summary: bool = False) -> None:
    """The cycle for a person; ``summary`` leaves out the per-job lists (a
    10,000-slot cycle's matches are 40,000 lines of cron mail)."""
    lines = _header(data["cycle"])
    sections = (
        (_counted, _submitters, _groups, _problems) if summary
        else (_matches, _rejections, _submitters, _groups, _released, _problems)
    )
    for section in sections:
        lines += section(data)
    if "explain" in data:
        lines += explain_lines(data["explain"])
    print_text(console, "\n".join(lines))


# -- negotiate --what-if ---------------------------------------------------------------


def _change(before: float | None, after: float | None) -> str:
    if before is None and after is None:
        return "-"
    return f"{_n(before)} -> {_n(after)}" if before != after else _n(after)


def _outcome(o: dict[str, Any] | None) -> str:
    if o is None:
        return "not reached"
    if o["status"] == "matched":
        return f"{o['slot']} ({o['reason']})"
    return f"rejected: {o['reason']}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}%"


def draw_what_if(console: Console, data: dict[str, Any]) -> None:
    """The difference a ``--what-if`` run found (``negotiate_whatif``): the changes,
    the totals, then per submitter, per group and per job what moved."""
    stamp = local_stamp(data["time"])
    b, a = data["cycles"]["before"], data["cycles"]["after"]
    lines = [f"What if: {'; '.join(data['what_if'])}",
             f"Both cycles at {stamp} on the same state and ads (nothing written): "
             f"matches {_change(b['matches'], a['matches'])}, rejections "
             f"{_change(b['rejections'], a['rejections'])}, pie spins "
             f"{_change(b['pie_spins'], a['pie_spins'])}", "", "Submitters:"]
    rows = []
    for s in data["submitters"]:
        sb, sa = s["before"] or {}, s["after"] or {}
        eup_b, eup_a = sb.get("effective_priority"), sa.get("effective_priority")
        rows.append([s["name"],
                     "-" if eup_b is None else f"{eup_b:.2f}",
                     "-" if eup_a is None else f"{eup_a:.2f}",
                     f"{_pct(sb.get('share'))} -> {_pct(sa.get('share'))}",
                     _change(sb.get("matched"), sa.get("matched")),
                     f"{s['gained']:+g}",
                     _change(sb.get("rejected_jobs"), sa.get("rejected_jobs"))])
    lines += _table(["Submitter", "EUP before", "EUP after", "Share", "Matched", "Gained",
                     "Rejected jobs"], rows, {1, 2, 4, 5, 6})
    if data["groups"]:
        rows = [[g["name"],
                 _change((g["before"] or {}).get("effective_quota"),
                         (g["after"] or {}).get("effective_quota")),
                 _change((g["before"] or {}).get("allocated"),
                         (g["after"] or {}).get("allocated")),
                 _change((g["before"] or {}).get("matched"), (g["after"] or {}).get("matched")),
                 f"{g['gained']:+g}"] for g in data["groups"]]
        lines += ["", "Groups:", *_table(["Group", "Quota", "Allocated", "Matched", "Gained"],
                                         rows, {1, 2, 3, 4})]
    status = [j for j in data["jobs"] if j["change"] == "status"]
    moved = len(data["jobs"]) - len(status)
    lines += ["", f"Jobs matched in one cycle and not the other, or rejected otherwise: "
              f"{len(status)}"]
    if status:
        rows = [[j["job"], (j["after"] or j["before"])["submitter"], _outcome(j["before"]),
                 _outcome(j["after"])] for j in status]
        lines += _table(["Job", "Submitter", "Before", "After"], rows, set())
    if moved:
        lines += ["", f"Jobs matched in both cycles but to another slot: {moved} "
                  f"(listed in --json)"]
    print_text(console, "\n".join(lines))
