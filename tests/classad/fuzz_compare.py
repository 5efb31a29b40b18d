"""Running campaign cases through both libraries.

``run_cases`` asks classad2 (``fuzz_oracle`` in a child process, restarted after a
crash) and condorlite (``fuzz_ours``, in this process, with a CPU time limit per case)
and returns the findings: each a case, the field that differs and both answers.
``fuzz_classify`` sorts them into classes.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from . import fuzz_ours

ROOT = Path(__file__).resolve().parent.parent.parent
TIME_LIMIT = 5.0
FIELDS = ("unparsable", "value", "print", "shown", "match", "old", "new", "compact", "json",
          "old_back", "new_back", "json_back")  # fmt: skip


@dataclass
class Finding:
    case: dict
    field: str
    theirs: object
    ours: object


def oracle_answers(cases: list[dict]) -> tuple[list[dict], int]:
    """classad2's answers (``{"oracle_crash": true}`` where it crashed) and the number
    of crashes."""
    answers: list[dict] = []
    crashes = 0
    pending = list(cases)
    while pending:
        proc = subprocess.run(
            [sys.executable, "-m", "tests.classad.fuzz_oracle"],
            input="".join(json.dumps(c) + "\n" for c in pending),
            capture_output=True, text=True, cwd=ROOT, check=False,
        )  # fmt: skip
        lines = proc.stdout.splitlines()
        answers.extend(json.loads(line) for line in lines)
        pending = pending[len(lines) :]
        if pending:
            answers.append({"oracle_crash": True})
            crashes += 1
            pending = pending[1:]
    return answers, crashes


def differences(theirs: dict, ours: dict) -> list[tuple[str, object, object]]:
    """The fields on which two answers disagree. A field classad2's binding could not
    hand back is not compared; condorlite refusing or crashing is a difference."""
    if "binding" in theirs or "oracle_crash" in theirs:
        return []
    for trouble in ("crash", "timeout"):
        if trouble in ours:
            return [(trouble, None, ours[trouble])]
    if theirs.get("unparsable") or ours.get("unparsable"):
        same = theirs.get("unparsable") == ours.get("unparsable")
        return (
            []
            if same
            else [("unparsable", bool(theirs.get("unparsable")), bool(ours.get("unparsable")))]
        )
    normal = json.loads(json.dumps(ours))
    return [
        (f, theirs[f], normal.get(f)) for f in FIELDS if f in theirs and theirs[f] != normal.get(f)
    ]


class _Late(BaseException):
    """condorlite took longer than ``TIME_LIMIT`` on one case."""


def _late(signum, frame) -> None:
    raise _Late


def answer_in_time(case: dict) -> dict:
    """condorlite's answer, or ``{"timeout": ...}`` past ``TIME_LIMIT`` seconds of
    CPU time (classad2 answers every generated case in well under a second)."""
    previous = signal.signal(signal.SIGPROF, _late)
    signal.setitimer(signal.ITIMER_PROF, TIME_LIMIT)
    try:
        return fuzz_ours.answer(case)
    except _Late:
        return {"timeout": f"more than {TIME_LIMIT} s of CPU time"}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def run_cases(cases: list[dict]) -> tuple[list[Finding], dict[str, int]]:
    """Both libraries' answers to ``cases``; the findings and counters (cases, crashes
    of classad2, binding-limited answers, refusals by both)."""
    theirs, crashes = oracle_answers(cases)
    findings = []
    counts = {"cases": len(cases), "oracle_crash": crashes, "binding": 0, "both_refused": 0}
    for case, answer in zip(cases, theirs, strict=True):
        mine = answer_in_time(case)
        counts["binding"] += "binding" in answer
        if "oracle_crash" in answer:
            findings.append(Finding(case, "classad2 crash", None, None))
        counts["both_refused"] += bool(answer.get("unparsable") and mine.get("unparsable"))
        findings += [Finding(case, *diff) for diff in differences(answer, mine)]
    return findings, counts
