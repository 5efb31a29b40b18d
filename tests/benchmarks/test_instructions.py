"""``benchmarks/instructions.py``: instruction counts of one cycle under callgrind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.benchmarks._load import load

counter = load("instructions")
genpool = load("genpool")

LOG = """\
==4242== Events    : Ir
==4242== Collected : 1,234,567
==4242==
==4242== I   refs:      1,234,567
"""


def test_counts_are_read_from_the_log_and_the_output() -> None:
    assert counter.parse_counts(LOG, "read 3 ads\nmatches 42\n") == (1_234_567, 42)
    with pytest.raises(ValueError):
        counter.parse_counts("==1== no summary\n", "matches 42\n")
    with pytest.raises(ValueError):
        counter.parse_counts(LOG, "the child printed nothing useful\n")


def test_a_missing_pool_is_refused(tmp_path: Path, capsys) -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        assert counter.main(["--pool", str(tmp_path)]) == 2
        assert "not installed" in capsys.readouterr().err
        return
    assert counter.main(["--pool", str(tmp_path)]) == 2
    assert "slots.ads: no such file" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_a_small_cycle_is_counted(tmp_path: Path, capsys) -> None:
    spec = genpool.PoolSpec(slots=30, jobs=120, submitters=3, autoclusters=6, seed=1)
    files = genpool.write_pool(spec, tmp_path)
    pool = files.slots_path.parent
    assert counter.main(["--pool", str(pool), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["matches"] > 0
    # the cycle alone: far more than nothing, far less than a Python start-up (~10^8)
    assert 10**6 < row["instructions"] < 10**9
    assert Path(row["tree"]) == Path(counter.HERE.parent)


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_the_pools_own_policy_is_read_with_pool_policy(tmp_path: Path, capsys) -> None:
    spec = genpool.PoolSpec(slots=30, jobs=120, submitters=3, autoclusters=6, seed=1)
    files = genpool.write_pool(spec, tmp_path)
    pool = files.slots_path.parent
    (pool / "pool.toml").write_text('PREEMPTION_REQUIREMENTS = "RemoteUserPrio > 1"\n')
    assert counter.main(["--pool", str(pool), "--pool-policy", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["matches"] > 0
    # an unknown knob stops the child only when the pool's policy is read
    (pool / "pool.toml").write_text("NO_SUCH_KNOB = 1\n")
    assert counter.main(["--pool", str(pool), "--json"]) == 0
    capsys.readouterr()
    assert counter.main(["--pool", str(pool), "--pool-policy", "--json"]) == 1
    assert "the child failed" in capsys.readouterr().err


CACHE_LOG = """\
==4242== Events    : Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
==4242== Collected : 1000 400 200 3 20 5 1 2 4 150 7 30 2
==4242==
==4242== I   refs:      1,000
"""


def test_cache_figures_follow_valgrinds_cycle_estimate() -> None:
    events = counter.parse_events(CACHE_LOG)
    assert events["Ir"] == 1000 and events["Bim"] == 2 and len(events) == 13
    figures = counter.cache_figures(events)
    # first level 3 + 20 + 5, last level 1 + 2 + 4, mispredicts 7 + 2
    assert figures == {"l1_misses": 28, "ll_misses": 7, "mispredicts": 9,
                       "cycles": 1000 + 10 * (28 + 9) + 100 * 7}
    # an instructions-only log has no cache events: asking for them is an error
    with pytest.raises(ValueError):
        counter.cache_figures(counter.parse_events(LOG))
    assert counter.parse_events("==1== nothing\n") == {}


def test_the_table_shows_cache_ratios_when_measured() -> None:
    plain = counter.Count("/a", "abc", 200, 5)
    assert "cycles" not in counter.table([plain])
    a = counter.Count("/a", "abc", 200, 5, 10, 2, 3, 400)
    b = counter.Count("/b", "def", 100, 5, 10, 1, 3, 300)
    text = counter.table([a, b])
    assert "| /b | def | 100 | 0.500 | 5 | 10 | 1 | 3 | 300 | 0.750 |" in text
    assert text.splitlines()[1].count("---") == 10


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_a_small_cycle_is_counted_with_the_cache_simulated(tmp_path: Path, capsys) -> None:
    spec = genpool.PoolSpec(slots=30, jobs=120, submitters=3, autoclusters=6, seed=1)
    files = genpool.write_pool(spec, tmp_path)
    pool = files.slots_path.parent
    assert counter.main(["--pool", str(pool), "--json", "--cache"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["l1_misses"] > 0 and row["mispredicts"] > 0
    assert row["cycles"] > row["instructions"] + 10 * row["l1_misses"]
