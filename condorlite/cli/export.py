"""``condorlite export htcondor DIR``: the policy and the accountant, for a real pool.

Writes two files into DIR, all or nothing (both are written to temporary files first,
then renamed into place):

``condor_config.condorlite``
    every knob of the policy that HTCondor reads, in condor_config syntax, from
    ``store.config.KNOBS`` and the per-group knobs (``GROUP_QUOTA_<g>`` ...), with the
    values condorlite used, defaults included, so the pool behaves as condorlite did
    whatever its own version's defaults. Numbers are written with ``repr`` (they read
    back exactly), booleans as ``true``/``false``, lists comma-separated, expressions
    as they are. condorlite's own knobs (SLOTS, JOBS, HISTORY_RETENTION,
    SGE_CELL_DUMP) are left out, and UID_DOMAIN and ACCOUNTANT_LOCAL_DOMAIN are
    written commented out: they belong to the pool's own configuration. Put the file
    in ``LOCAL_CONFIG_DIR`` and run ``condor_reconfig``.
``condor_userprio.sh``
    one ``condor_userprio`` command per record field that the command can set, for
    every record as an update at ``--now`` leaves it (``userprio`` shows the same
    figures): ``-setfactor``, ``-setprio`` (the real priority), ``-setaccum``
    (weighted accumulated usage), ``-setbegin``, ``-setlast``, and ``-setceiling`` /
    ``-setfloor`` when set. Names are shell-quoted; a record whose name holds control
    characters is left out, with a comment. Slots in use and unweighted usage cannot
    be set by condor_userprio: the pool's own claims bring them.

Round trip (tests): running the script's commands as the condorlite edits of the same
names on an empty state at ``--now`` gives the same records (those fields), and reading
the config back gives the same policy.

``condorlite export sge DIR --cell DUMP [--what-if CHANGE]...`` writes a Grid Engine
cell's policy objects as ``qconf -M...`` input files, from the dump's own text (the
formats are the same: what ``qconf -s...`` prints, ``qconf -M...`` reads), after the
changes of ``sge qstat --what-if`` when given: ``sched_conf`` (``-Msconf``),
``share_tree`` (``-Mstree``), ``users/NAME`` (``-Muser``), ``projects/NAME``
(``-Mprj``), ``usersets/NAME`` (``-Mu``), and ``apply.sh`` running those commands. The
tests put the files back together into a dump and read the same objects.
"""

from __future__ import annotations

import re
import shlex
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, now_or_clock, open_store
from condorlite.cli.errors import run_command
from condorlite.cli.outfiles import OutFile, write_all
from condorlite.cli.render import Result, local_stamp, visible
from condorlite.cli.sge._cell import CellOpt
from condorlite.cli.sge._cell import cell_dir as sge_cell_dir
from condorlite.core.accounting import MIN_PRIORITY, Record, update_priorities
from condorlite.core.policy import Policy
from condorlite.errors import DataError
from condorlite.store.config import GROUP_KNOBS, KNOBS
from condorlite.store.sge_cell import changed_dump, parse_change, read_cell

CONFIG_FILE = "condor_config.condorlite"
SCRIPT_FILE = "condor_userprio.sh"
#: Knobs only condorlite reads.
OWN_KNOBS = frozenset({"SLOTS", "JOBS", "HISTORY_RETENTION", "SGE_CELL_DUMP"})
#: Knobs the pool's own configuration owns: written commented out.
POOL_KNOBS = frozenset({"UID_DOMAIN", "ACCOUNTANT_LOCAL_DOMAIN"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _value(kind: str, value: Any) -> str:
    if kind == "bool":
        return "true" if value else "false"
    if kind == "list":
        return ", ".join(value)
    if kind in ("number", "int") and isinstance(value, float):
        return repr(value)
    return str(value)


def config_lines(policy: Policy, source: str) -> list[str]:
    """The condor_config fragment (module doc)."""
    lines = [f"# Exported by condorlite from {source}", "# Policy knobs as condorlite used "
             "them (defaults included). Put this file in LOCAL_CONFIG_DIR, then "
             "condor_reconfig.", ""]
    for knob in KNOBS:
        if knob.name in OWN_KNOBS:
            continue
        value = getattr(policy, knob.field)
        if value is None:
            continue
        line = f"{knob.name} = {_value(knob.kind, value)}"
        lines.append(f"# {line}   (the pool's own setting applies)"
                     if knob.name in POOL_KNOBS else line)
    for prefix, field, kind, _minimum, _help in GROUP_KNOBS:
        for group, value in sorted(getattr(policy, field).items()):
            lines.append(f"{prefix}{group} = {_value(kind, value)}")
    return lines


def _setters(rec: Record) -> list[tuple[str, str]]:
    out = [("-setfactor", repr(rec.priority_factor)),
           ("-setprio", repr(max(MIN_PRIORITY, rec.priority))),
           ("-setaccum", repr(rec.weighted_accumulated_usage)),
           ("-setbegin", str(int(rec.begin_usage_time))),
           ("-setlast", str(int(rec.last_usage_time)))]
    if rec.ceiling >= 0:
        out.append(("-setceiling", str(rec.ceiling)))
    if rec.floor > 0:
        out.append(("-setfloor", str(rec.floor)))
    return out


def script_lines(records: dict[str, Record], at: float) -> list[str]:
    """The condor_userprio script (module doc)."""
    stamp = local_stamp(at)
    lines = ["#!/bin/sh", f"# Exported by condorlite: the accountant as of {stamp}.",
             "# Run as a condor administrator against the pool's negotiator.", "set -e"]
    for name in sorted(records):
        if _CONTROL.search(name):
            lines.append(f"# left out: a record whose name holds control characters "
                         f"({visible(name)!r})")
            continue
        for flag, value in _setters(records[name]):
            lines.append(f"condor_userprio {flag} {shlex.quote(name)} {value}")
    return lines


def build_export(folder: Path, state_dir, now, lock_timeout: float, config) -> Result:  # type: ignore[no-untyped-def]
    at = now_or_clock(now)
    store = open_store(state_dir, lock_timeout, config, write=False)
    with store.transaction(write=False) as tx:
        stored = tx.load_accountant()
    records = update_priorities(stored, store.policy, at).records
    config_text = "\n".join(config_lines(store.policy, str(store.config_path))) + "\n"
    script = "\n".join(script_lines(records, at)) + "\n"
    write_all([OutFile(folder / CONFIG_FILE, config_text),
               OutFile(folder / SCRIPT_FILE, script, executable=True)], str(folder))
    commands = sum(1 for line in script.splitlines() if line.startswith("condor_userprio"))
    data = {"directory": str(folder), "config_file": str(folder / CONFIG_FILE),
            "script_file": str(folder / SCRIPT_FILE), "records": len(records),
            "commands": commands}

    def human(console) -> None:  # type: ignore[no-untyped-def]
        console.file.write(visible(
            f"Wrote {folder / CONFIG_FILE} (the policy knobs) and {folder / SCRIPT_FILE} "
            f"({commands} condor_userprio commands for {len(records)} records)\n"))

    return Result(command="export", data=data, human=human)


# -- Grid Engine -------------------------------------------------------------------------

#: dump file -> (the folder its objects go to, the qconf option that loads one).
SGE_OBJECTS = {"users": ("users", "-Muser"), "projects": ("projects", "-Mprj"),
               "usersets": ("usersets", "-Mu")}


def _blocks(text: str) -> list[tuple[str, str]]:
    """(name, text) of each object of a ``qconf -s...`` file of several objects: each
    starts at a ``name`` line, and keeps its lines as they are."""
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.split(None, 1)[:1] == ["name"]:
            out.append((line.split(None, 1)[1].strip(), []))
        if out:
            out[-1][1].append(line)
    return [(name, "\n".join(lines) + "\n") for name, lines in out]


def sge_files(dump: Path) -> dict[str, str]:
    """Relative path -> text of every ``qconf -M...`` input of the dump (module doc of
    ``export sge``), and ``apply.sh`` running them."""
    files: dict[str, str] = {}
    commands = []
    conf = dump / "sched_conf"
    files["sched_conf"] = conf.read_text(encoding="utf-8")
    commands.append("qconf -Msconf sched_conf")
    for name, (folder, option) in SGE_OBJECTS.items():
        path = dump / name
        if not path.is_file():
            continue
        for obj, text in _blocks(path.read_text(encoding="utf-8")):
            if "/" in obj or obj in ("", ".", ".."):
                raise DataError(f"{path}: object name {obj!r} cannot be a file name")
            files[f"{folder}/{obj}"] = text
            commands.append(f"qconf {option} {shlex.quote(f'{folder}/{obj}')}")
    tree = dump / "share_tree"
    if tree.is_file() and tree.read_text(encoding="utf-8").strip():
        files["share_tree"] = tree.read_text(encoding="utf-8")
        commands.append("qconf -Mstree share_tree")
    files["apply.sh"] = "\n".join([
        "#!/bin/sh", "# Exported by condorlite: load the cell's policy objects.",
        "# Run from this directory as a Grid Engine manager.", "set -e",
        'cd "$(dirname "$0")"', *commands]) + "\n"
    return files


def build_export_sge(folder: Path, cell, config, state_dir, what_if: list[str]  # type: ignore[no-untyped-def]
                     ) -> Result:
    dump = sge_cell_dir(cell, config, state_dir)
    with tempfile.TemporaryDirectory(prefix="condorlite-export-sge-") as tmp:
        if what_if:
            changed_dump(dump, [parse_change(t) for t in what_if], Path(tmp))
            dump = Path(tmp)
        read_cell(dump)  # it must read (the changed copy: every file): nothing from a bad one
        files = sge_files(dump)
    write_all([OutFile(folder / rel, text, executable=rel.endswith(".sh"))
               for rel, text in files.items()], str(folder))
    data = {"directory": str(folder), "files": sorted(files), "what_if": what_if}

    def human(console) -> None:  # type: ignore[no-untyped-def]
        console.file.write(visible(
            f"Wrote {len(files) - 1} qconf input files and apply.sh to {folder}\n"))

    return Result(command="export", data=data, human=human)


def register(app: typer.Typer) -> None:
    sub = typer.Typer(name="export", no_args_is_help=True,
                      help="Write the policy and the accountant for a real scheduler.")

    @sub.command("htcondor")
    def htcondor(
        folder: Annotated[Path, typer.Argument(
            metavar="DIR", help="Directory to write condor_config.condorlite and "
            "condor_userprio.sh into (created if missing).", file_okay=False)],
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        """Write the policy as condor_config knobs and the accountant as a
        condor_userprio script, for moving to a real HTCondor pool."""
        run_command("export", as_json,
                    lambda: build_export(folder, state_dir, now, lock_timeout, config))

    @sub.command("sge")
    def sge(
        folder: Annotated[Path, typer.Argument(
            metavar="DIR", help="Directory to write the qconf input files and apply.sh "
            "into (created if missing).", file_okay=False)],
        cell: CellOpt = None,
        what_if: Annotated[list[str] | None, typer.Option(
            "--what-if", metavar="CHANGE",
            help="Export the cell after CHANGE (as sge qstat --what-if; repeatable).")
        ] = None,
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Write a Grid Engine cell dump's sched_conf, share tree, users, projects and
        usersets as qconf -M... input files, with apply.sh to load them."""
        run_command("export", as_json, lambda: build_export_sge(
            folder, cell, config, state_dir, list(what_if or ())))

    app.add_typer(sub, name="export")
