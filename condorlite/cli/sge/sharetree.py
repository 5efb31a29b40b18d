"""``condorlite sge sharetree``: the share tree with its shares, usage and targets.

One row per node (depth first, as ``qconf -sstree`` lists them, users that reach the
``default`` node shown under it as ``sge_share_mon`` shows them): shares, the level
percentage (shares over its siblings' shares), the total percentage (the product of
level percentages down from the root), the combined decayed usage, the long- and
short-term targets the scheduler works out among *active* nodes (nodes with jobs; 0
for the others), the actual share (usage over the root's usage) and the jobs counted
(running/pending). ``--json`` gives the same rows at full precision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from condorlite.cli._params import ConfigOpt, JsonOpt, NowOpt, StateDirOpt
from condorlite.cli.errors import run_command
from condorlite.cli.render import Result, print_text
from condorlite.cli.sge._cell import CellOpt, collector_paused
from condorlite.cli.sge._recorded import read_priced
from condorlite.core.sge.priority import prioritise
from condorlite.core.sge.sharetree import Node
from condorlite.errors import DomainError


def tree_rows(root: Node) -> list[dict[str, Any]]:
    """Every node as a row (module doc)."""
    rows: list[dict[str, Any]] = []
    total_usage = root.usage

    def visit(node: Node, depth: int, level: float, total: float) -> None:
        rows.append(
            {
                "node": node.usage_path or node.path,
                "name": node.name,
                "depth": depth,
                "shares": node.shares,
                "level_percent": 100.0 * level,
                "total_percent": 100.0 * total,
                "usage": node.usage,
                "long_target_share": node.oltt if node.job_ref_count else 0.0,
                "short_target_share": node.ostt if node.job_ref_count else 0.0,
                "actual_share": node.usage / total_usage if total_usage > 0 else 0.0,
                "running_jobs": node.active_job_ref_count,
                "pending_jobs": node.job_ref_count - node.active_job_ref_count,
                "project": node.is_project,
            }
        )
        siblings = [c for c in node.children if not c.temp]
        users = [c for c in node.children if c.temp]
        shares = sum(c.shares for c in siblings)
        for child in siblings:
            part = child.shares / shares if shares else 0.0
            visit(child, depth + 1, part, total * part)
            if child.name == "default":
                for user in users:
                    visit(user, depth + 2, 1.0, total * part)

    visit(root, 0, 1.0, 1.0)
    return rows


def render_tree(console: Console, rows: list[dict[str, Any]]) -> None:
    header = (
        f"{'node':<32} {'shares':>7} {'level%':>7} {'total%':>7} {'usage':>12} "
        f"{'lt-target':>9} {'st-target':>9} {'actual':>7} {'run':>5} {'pend':>5}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        name = "  " * r["depth"] + (r["name"] if r["depth"] else "/")
        lines.append(
            f"{name[:32]:<32} {r['shares']:7d} {r['level_percent']:7.2f} "
            f"{r['total_percent']:7.2f} {r['usage']:12.2f} {r['long_target_share']:9.5f} "
            f"{r['short_target_share']:9.5f} {r['actual_share']:7.5f} "
            f"{r['running_jobs']:5d} {r['pending_jobs']:5d}"
        )
    print_text(console, "\n".join(lines))


def _sharetree(
    cell: Path | None, config: Path | None, state_dir: Path | None, now: str | float | None
) -> Result:
    priced = read_priced(cell, config, state_dir, now)
    result = prioritise(priced.cell, priced.at)
    if result.tree is None:
        raise DomainError("the cell has no share tree (qconf -sstree printed none)")
    rows = tree_rows(result.tree)
    data = {"now": result.now, "nodes": rows, "usage_source": priced.usage_source,
            "warnings": list(priced.cell.warnings)}
    return Result("sge sharetree", data, lambda console: render_tree(console, rows))


def register(app: typer.Typer) -> None:
    @app.command("sharetree")
    def sharetree(
        cell: CellOpt = None,
        now: NowOpt = None,
        as_json: JsonOpt = False,
        config: ConfigOpt = None,
        state_dir: StateDirOpt = None,
    ) -> None:
        """The share tree: shares, usage, long- and short-term targets, actual share."""
        with collector_paused():
            run_command("sge sharetree", as_json, lambda: _sharetree(cell, config, state_dir, now))
