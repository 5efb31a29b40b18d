"""``job_ad_reads.py`` on a tiny generated pool: the reader runs and the job ads the
cycle reads, and the engine's ``entry_key`` given back afterwards."""

from __future__ import annotations

import re
from pathlib import Path

from condorlite.cli import negotiate_inputs
from condorlite.core import ad_decoder, entry_keys
from tests.benchmarks._load import load

load("cycle_cpu")  # (the script imports its sibling by name)
reads = load("job_ad_reads")
real = load("negotiate_real")


def test_counts_the_job_ads_a_cycle_reads(tmp_path: Path, capsys) -> None:
    spec = real.row_spec("partitionable-mix", 40, 400, 5, 20, 0)
    files, _ = real.ensure_pool("partitionable-mix", spec, tmp_path)
    assert reads.main([str(files.slots_path.parent)]) == 0
    out = capsys.readouterr().out
    jobs, runs = map(int, re.search(r"jobs (\d+) reader runs (\d+)", out).groups())
    assert jobs == 400 and 0 < runs < jobs  # a cluster's jobs are one reader run
    read, firsts, others = map(int, re.search(
        r"job ads read (\d+): (\d+) start a run, (\d+) do not", out).groups())
    assert read == firsts + others and 0 < firsts <= runs
    assert negotiate_inputs.entry_key is entry_keys.entry_key
    assert ad_decoder.entry_key is entry_keys.entry_key
