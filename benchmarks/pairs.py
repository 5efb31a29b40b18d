"""Symmetric-match throughput on a generated pool's own ads: condorlite against classad2.

``negotiate.py`` calls this once per pool size and format, in the same run as the
negotiation cycle, so the figures describe the very ads the cycle matched.

Sampling (seeded, the same ads for the old and the JSON file of one pool, since both
hold the same ads in the same order):

* jobs: the first ad of every autocluster (jobs whose Requirements, Rank and
  Request* lines are equal, in file order), then ``n`` of those drawn with
  ``random.Random(seed)`` and kept in file order;
* slots: the slots grouped by kind, (machine type, ``SlotType``, ``State``), where
  the machine type is the host name's first label without its number
  (``old-f00001.example.org`` -> ``old-f``); a seeded reservoir of up to ``n`` slots
  per kind; then round-robin over the kinds in sorted order (first slot of every kind,
  then the second, ...) until ``n`` slots, so that every kind appears when
  ``n`` >= the number of kinds.

Each sampled ad is parsed once by each library (condorlite: ``parse_ads(text,
format)``; classad2: ``parseOne(text, ParserType.Old|JSON)`` after ``import
htcondor2`` for daemon semantics). A pass evaluates every (job, slot) pair once with
``symmetric_match`` / ``ClassAd.symmetricMatch``. After ``warm`` calls per ad (so that
condorlite has compiled its hot expressions, as it does in a cycle), the two libraries
are timed pass by pass in alternating rounds of thread CPU time, each keeping its best
of ``repeat`` rounds (``classad_vs_oracle.best_rates``); the rate is pairs per second
and the ratio is condorlite's rate over classad2's (above 1: condorlite is faster).

Agreement: condorlite's answers are recorded before the warm-up (tree-walking path)
and after the timing (compiled path); both must equal classad2's answer for every
pair, else the row is a failure.
"""

from __future__ import annotations

import importlib
import math
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: How consecutive ads are separated in each file layout that ``genpool`` writes.
SEPARATORS = {"old": "\n\n", "json": "\n,\n"}

#: The lines that make a job's autocluster in a generated pool (``genpool.JobShape``).
_JOB_SHAPE_LINE = re.compile(
    r'^\s*"?(?:Requirements|Rank|Request(?:Cpus|Memory|Disk|GPUs))"?\s*[=:].*$', re.M)
_SLOT_KIND_ATTR = re.compile(r'^\s*"?(Machine|SlotType|State)"?\s*[=:]\s*"([^"]*)"', re.M)
_LABEL_ATTR = re.compile(r'^\s*"?(?:Name|GlobalJobId)"?\s*[=:]\s*"([^"]*)"', re.M)
#: How many disagreeing pairs a row quotes.
EXAMPLES = 3


def ad_texts(path: Path, fmt: str, block: int = 1 << 22) -> Iterator[str]:
    """The text of each ad of an ``old`` or ``json`` file, streamed ``block``
    characters at a time (a 1M-job file is never held whole). JSON ads come without
    the enclosing ``[``/``]``, each a single object."""
    sep = SEPARATORS[fmt]
    rest = ""
    with path.open(encoding="utf-8", newline="") as handle:
        while chunk := handle.read(block):
            parts = (rest + chunk).split(sep)
            rest = parts.pop()  # may be cut in the middle: completed by the next block
            yield from (_trim(part, fmt) for part in parts if part.strip())
    if rest.strip():
        yield _trim(rest, fmt)


def _trim(text: str, fmt: str) -> str:
    text = text.strip()
    if fmt == "json":
        text = text.removeprefix("[").removesuffix("]").strip()
    return text + "\n"


def slot_kind(text: str) -> tuple[str, str, str]:
    """(machine type, SlotType, State) of a slot ad's text; missing parts are ``""``."""
    attrs = dict(_SLOT_KIND_ATTR.findall(text))
    host = attrs.get("Machine", "").split(".", 1)[0]
    return host.rstrip("0123456789"), attrs.get("SlotType", ""), attrs.get("State", "")


def sample_jobs(path: Path, fmt: str, n: int, seed: int) -> list[str]:
    """``n`` job ads of distinct autoclusters (see the module docstring)."""
    first: dict[tuple[str, ...], str] = {}  # insertion order = file order
    for text in ad_texts(path, fmt):
        first.setdefault(tuple(_JOB_SHAPE_LINE.findall(text)), text)
    shapes = list(first.values())
    picks = random.Random(seed).sample(range(len(shapes)), min(n, len(shapes)))
    return [shapes[i] for i in sorted(picks)]


def sample_slots(path: Path, fmt: str, n: int, seed: int) -> list[str]:
    """``n`` slot ads spread over the slot kinds (see the module docstring)."""
    rng = random.Random(seed)
    kept: dict[tuple[str, str, str], list[str]] = {}
    seen: dict[tuple[str, str, str], int] = {}
    for text in ad_texts(path, fmt):
        kind = slot_kind(text)
        pool = kept.setdefault(kind, [])
        seen[kind] = count = seen.get(kind, 0) + 1
        if len(pool) < n:
            pool.append(text)
        elif (j := rng.randrange(count)) < n:  # reservoir sampling: each kept w.p. n/count
            pool[j] = text
    picked: list[str] = []
    for rank in range(n):
        for kind in sorted(kept):
            if rank < len(kept[kind]) and len(picked) < n:
                picked.append(kept[kind][rank])
    return picked


@dataclass
class PairRow:
    """One throughput row; rates are (job, slot) pairs per second of thread CPU time."""

    jobs: int
    slots: int
    kinds: int = 0  # distinct slot kinds among the sampled slots
    matching: int | None = None  # pairs that match (classad2's answer)
    condorlite_per_s: float | None = None
    classad2_per_s: float | None = None
    ratio: float | None = None
    disagreements: int = 0
    examples: list[str] = field(default_factory=list)
    note: str = ""  # why there are no figures, or what failed
    failed: bool = False

    @property
    def pairs(self) -> int:
        return self.jobs * self.slots

    @property
    def ok(self) -> bool:
        return not self.failed and self.disagreements == 0


def load_oracle() -> tuple[Any, Callable]:
    """(the classad2 module, ``classad_vs_oracle.best_rates``); ImportError when
    HTCondor's bindings are not installed."""
    import htcondor2  # noqa: F401  (first: daemon semantics for classad2)

    # imported by name so that no import sorter moves them above htcondor2
    classad2 = importlib.import_module("classad2")
    return classad2, importlib.import_module("classad_vs_oracle").best_rates


def _label(text: str) -> str:
    found = _LABEL_ATTR.search(text)
    return found.group(1) if found else "?"


def measure_pairs(job_texts: list[str], slot_texts: list[str], fmt: str, *, repeat: int = 7,
                  warm: int = 300, ours: Callable[[Any, Any], bool] | None = None) -> PairRow:
    """Time and cross-check every (job, slot) pair of the samples (module docstring).
    ``ours`` replaces condorlite's ``symmetric_match`` (the tests give a wrong one)."""
    row = PairRow(len(job_texts), len(slot_texts), len({slot_kind(t) for t in slot_texts}))
    if not row.pairs:
        row.note, row.failed = "no pairs: the pool has no jobs or no slots", True
        return row
    try:
        classad2, best_rates = load_oracle()
    except ImportError as exc:
        row.note = f"classad2 not importable ({exc})"
        return row
    from condorlite.core.classad import ClassAdSyntaxError, parse_ads, symmetric_match

    ours = ours or symmetric_match
    parser = classad2.ParserType.Old if fmt == "old" else classad2.ParserType.JSON
    try:
        our_ads = [next(parse_ads(t, fmt)) for t in (*job_texts, *slot_texts)]
        ref_ads = [classad2.parseOne(t, parser) for t in (*job_texts, *slot_texts)]
    except (ClassAdSyntaxError, ValueError, StopIteration) as exc:
        row.note, row.failed = f"an ad does not parse: {exc}", True
        return row
    split = len(job_texts)
    our_pairs = [(j, s) for j in our_ads[:split] for s in our_ads[split:]]
    ref_pairs = [(j, s) for j in ref_ads[:split] for s in ref_ads[split:]]

    def our_pass() -> list[bool]:
        return [ours(j, s) for j, s in our_pairs]

    def ref_pass() -> list[bool]:
        return [j.symmetricMatch(s) for j, s in ref_pairs]

    expected, tree_answers = ref_pass(), our_pass()
    # every ad takes part in min(jobs, slots) or more matches per pass
    for _ in range(math.ceil(warm / min(row.jobs, row.slots))):
        our_pass()
        ref_pass()
    our_rate, ref_rate = best_rates(our_pass, ref_pass, 1, repeat, time.thread_time)
    compiled_answers = our_pass()
    row.matching = sum(expected)
    row.condorlite_per_s, row.classad2_per_s = our_rate * row.pairs, ref_rate * row.pairs
    row.ratio = our_rate / ref_rate
    for i, want in enumerate(expected):
        if tree_answers[i] != want or compiled_answers[i] != want:
            row.disagreements += 1
            if len(row.examples) < EXAMPLES:
                job, slot = job_texts[i // row.slots], slot_texts[i % row.slots]
                row.examples.append(f"{_label(job)} x {_label(slot)}: classad2 {want}, "
                                    f"condorlite {tree_answers[i]} (tree) / "
                                    f"{compiled_answers[i]} (compiled)")
    return row


@dataclass(frozen=True)
class Sample:
    """How many jobs and slots to sample, and how to time them (``measure_pairs``)."""

    jobs: int = 50
    slots: int = 50
    repeat: int = 7
    warm: int = 300


def pool_pairs(jobs_path: Path, slots_path: Path, fmt: str, sample: Sample,
               seed: int = 0) -> PairRow:
    """Sample a pool's files and measure its pairs (``negotiate.py``'s symmetric-match
    row). The slot sample uses ``seed + 1`` so that it does not replay the job
    sample's random numbers."""
    return measure_pairs(sample_jobs(jobs_path, fmt, sample.jobs, seed),
                         sample_slots(slots_path, fmt, sample.slots, seed + 1), fmt,
                         repeat=sample.repeat, warm=sample.warm)
