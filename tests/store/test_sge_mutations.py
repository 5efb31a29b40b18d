"""Damaged cell dumps: every file of the recorded dumps, cut, edited and shuffled.

A dump an admin hands over may be truncated by a full disk, edited by hand or made by a
newer Grid Engine. Whatever the damage, reading it, prioritising it, making its JSON
rows and scheduling it either works or stops with a condorlite error (exit 65/66) whose
message names the file and, for a syntax error, the line; never another exception,
never a hang; and every ``sge`` command answers with a condorlite exit code, its
``--json`` envelope saying the same. For ``jobs.xml`` the fast reader (``_jobfast``)
and the careful one (``_jobscan``) also agree on the damaged bytes: the same jobs, or
the same error.

The damage is seeded (``random.Random(seed)``), so a failure names the case that
reproduces it; each case edits one file of one recorded dump one to three times.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import build_app
from condorlite.cli.sge.qstat import job_data
from condorlite.core.sge.dispatch import schedule
from condorlite.core.sge.priority import prioritise
from condorlite.errors import CondorliteError, DataError
from condorlite.store.sge_cell import _jobfast, _jobs, _jobscan, read_cell

RECORDED = Path(__file__).parent.parent / "data" / "sge"
DUMPS = sorted({p.parent for p in RECORDED.glob("*/*/jobs.xml")})
#: Values put where a number or a field's text was.
JUNK = ("", "x", "-1", "0", "1e308", "nan", "inf", "-0", "99999999999999999999", "1.5",
        "&amp;", "<", ">", "\t", " ", "NONE", "TRUE", "1:2", "a,b", "/", "=", "\x00", "é",
        "-2147483649", "0x10", "</JB_ja_structure>", "<JB_owner>")
#: What a junk value replaces: a number, an XML field's text, a line's last word.
_VALUES = (re.compile(r"-?\d+(?:\.\d+)?"), re.compile(r">([^<]*)<"),
           re.compile(r"\s(\S+)$"))
CASES = 240


def _damage(text: str, rng: random.Random) -> str:
    """``text`` with one edit: a line dropped, repeated, swapped, doubled or given a
    junk value or junk inside it, or the text cut short anywhere."""
    lines = text.split("\n")
    kind = rng.randrange(9)
    if kind == 0:
        return text[:rng.randrange(len(text) + 1)]
    at = rng.randrange(len(lines))
    line = lines[at]
    if kind == 1:
        del lines[at]
    elif kind == 2:
        lines.insert(at, rng.choice(lines))
    elif kind == 3:
        other = rng.randrange(len(lines))
        lines[at], lines[other] = lines[other], line
    elif kind == 4:
        lines[at] = line * 2
    elif kind == 5:
        place = rng.randrange(len(line) + 1)
        lines[at] = line[:place] + rng.choice(JUNK) + line[place:]
    else:
        found = list(_VALUES[kind - 6].finditer(line))
        if found:
            match = rng.choice(found)
            # the number itself, or the group: the field's text, the last word
            start, end = match.span(1) if kind > 6 else match.span()
            lines[at] = line[:start] + rng.choice(JUNK) + line[end:]
    return "\n".join(lines)


class _Hang(Exception):
    pass


def _alarm(*_args: object) -> None:
    raise _Hang


def _jobs_outcome(reader, data: bytes, source: Path) -> object:
    """``reader``'s jobs for ``data`` with the complexes, usersets and pending list of
    the undamaged dump ``source``, or its error's message."""
    cell = read_cell(source)
    instances = source / "queue_instances.xml"
    pending = _jobs.Pending(_jobs.scan_pending(instances.read_bytes(), "queue_instances.xml")
                            if instances.exists() else None)
    try:
        return reader(data, "jobs.xml", cell.complexes, cell.usersets, pending)
    except DataError as error:
        return error.message


@pytest.mark.parametrize("seed", range(CASES))
def test_a_damaged_dump_is_read_or_refused_never_crashes(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    dump = tmp_path / "cell"
    source = rng.choice(DUMPS)
    shutil.copytree(source, dump, ignore=shutil.ignore_patterns("expected"))
    # jobs.xml a third of the time (the two readers are compared on it), else any file
    files = sorted(f for f in dump.iterdir() if f.is_file())
    damaged = dump / "jobs.xml" if rng.random() < 1 / 3 else rng.choice(files)
    for _ in range(rng.choice((1, 1, 2, 3))):
        damaged.write_text(_damage(damaged.read_text(), rng))
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    try:
        cell = read_cell(dump)
        result = prioritise(cell, cell.now)
        for row in result.jobs:
            job_data(row)
        schedule(cell, result, cell.now)
    except DataError as error:
        # the file is named, with a line (or ``file: ...`` for a file-wide fault)
        assert re.search(r"[\w.]+(:\d+)?: ", error.message), error.message
    except CondorliteError:
        pass
    except _Hang:
        pytest.fail(f"no answer within 60 s after damaging {damaged.name}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if damaged.name == "jobs.xml":
        data = damaged.read_bytes()
        assert (_jobs_outcome(_jobfast.read_jobs, data, source)
                == _jobs_outcome(_jobscan.read_jobs, data, source))


#: Every command a damaged dump may meet, text and JSON (the job to explain: the first
#: job number left in jobs.xml).
COMMANDS = (("qstat", "--ext", "--urg", "--pri"), ("qstat", "--json"),
            ("qstat", "--what-if", "weight_ticket=0.5", "--json"), ("sharetree",),
            ("sharetree", "--json"), ("explain", "JOB"), ("explain", "JOB", "--json"),
            ("schedule", "--dry-run"), ("schedule", "--dry-run", "--json"))
_runner = CliRunner()
_app = build_app()


@pytest.mark.parametrize("seed", range(1000, 1030))
def test_every_command_answers_a_damaged_dump_with_an_exit_code(seed: int,
                                                                 tmp_path: Path) -> None:
    """A condorlite exit code (0, 1 no such job or tree, 2 a what-if key the damaged
    sched_conf lacks, 65, 66), never an internal error; with ``--json`` the one
    envelope, its ``status`` agreeing with the code."""
    rng = random.Random(seed)
    dump = tmp_path / "cell"
    shutil.copytree(rng.choice(DUMPS), dump, ignore=shutil.ignore_patterns("expected"))
    damaged = rng.choice(sorted(f for f in dump.iterdir() if f.is_file()))
    for _ in range(rng.choice((1, 1, 2, 3))):
        damaged.write_text(_damage(damaged.read_text(), rng))
    jobs = dump / "jobs.xml"
    found = re.search(rb"<JB_job_number>(\d+)", jobs.read_bytes()) if jobs.exists() else None
    job = found.group(1).decode() if found else "1"
    for command in COMMANDS:
        args = ["sge", *(job if a == "JOB" else a for a in command), "--cell", str(dump),
                "--state-dir", str(tmp_path / "state")]
        result = _runner.invoke(_app, args)
        assert result.exit_code in (0, 1, 2, 65, 66), (args, damaged.name, result.output[-400:])
        assert "internal error" not in result.output, (args, damaged.name)
        if "--json" in command:
            envelope = json.loads(result.stdout)
            assert envelope["status"] == ("ok" if result.exit_code == 0 else "error"), (
                args, damaged.name)
