"""jobs.xml read in two parts at once (``_jobfast.JobsRead``, ``condorlite.forked``).

The recorded dumps are small, so the tests lower ``PARALLEL_BYTES`` to make every one
of them a two-part read, and compare with the one-part read: the same jobs, warnings
and errors, whatever the split, whether the child gives its jobs, fails, or never
starts.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from condorlite import forked
from condorlite.errors import DataError, InputMissingError
from condorlite.store.sge_cell import _jobfast, read_cell

HERE = Path(__file__).parent
RECORDED = HERE.parent / "data" / "sge"
MIX = HERE / "sge_samples" / "reader_mix"
EVERY_DUMP = sorted(p.parent for p in (RECORDED.glob("*/*/jobs.xml"))) + sorted(
    p.parent for p in MIX.glob("*/jobs.xml"))
#: Enough dumps with several jobs to cut at many places, in a second or two.
SOME = [d for d in EVERY_DUMP if (d / "jobs.xml").stat().st_size > 20_000][:40]


def _one_part(dump: Path, monkeypatch) -> object:
    with monkeypatch.context() as patch:
        patch.setattr(_jobfast, "PARALLEL_BYTES", 1 << 62)
        return _outcome(dump)


def _outcome(dump: Path) -> object:
    try:
        cell = read_cell(dump)
    except (DataError, InputMissingError) as error:
        return type(error).__name__, error.message
    return cell.jobs, cell.warnings


class _Counting(forked.Forked):
    """``Forked`` that counts the children whose value was taken."""

    taken = 0

    def result(self):
        value = super().result()
        _Counting.taken += 1
        return value


@pytest.fixture
def two_parts(monkeypatch):
    monkeypatch.setattr(_jobfast, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(forked, "two_cores", lambda: True)
    monkeypatch.setattr(_jobfast, "Forked", _Counting)
    _Counting.taken = 0
    return monkeypatch


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_two_part_read_is_the_one_part_read(two_parts) -> None:
    assert SOME, "no recorded dump with several jobs"
    for dump in SOME:
        assert _outcome(dump) == _one_part(dump, two_parts), dump
    assert _Counting.taken == len(SOME)  # every tail came from a child


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("share", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_any_cut_gives_the_same_jobs(two_parts, share) -> None:
    """Cut anywhere (at the first job, in the middle, past the last one)."""
    original = _jobfast.JobsRead.__init__

    def init(self, *args, **kwargs):
        kwargs["head_share"] = share
        original(self, *args, **kwargs)

    two_parts.setattr(_jobfast.JobsRead, "__init__", init)
    for dump in SOME[:8]:
        assert _outcome(dump) == _one_part(dump, two_parts), (dump, share)


def test_a_child_that_fails_or_never_starts_costs_only_time(two_parts) -> None:
    class Failing(forked.Forked):
        def result(self):
            super().close()
            raise forked.ChildFailed("test")

    two_parts.setattr(_jobfast, "Forked", Failing)
    dump = SOME[0]
    assert _outcome(dump) == _one_part(dump, two_parts)
    two_parts.setattr(forked, "two_cores", lambda: False)  # nothing forked at all
    two_parts.setattr(_jobfast, "Forked", forked.Forked)
    assert _outcome(dump) == _one_part(dump, two_parts)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("edit", [
    ("<JB_priority>", "<JB_priority>x"),          # a value that does not convert
    ("</JB_ja_structure>", ""),                    # a container never closed
    ("<JB_owner>", "</JB_ja_structure><JB_owner>"),  # a closing tag out of place
])
def test_an_irregular_tail_is_read_by_the_careful_reader(two_parts, tmp_path, edit) -> None:
    """A fault in the child's part: the whole document goes to ``_jobscan``, whose
    error (with its line) is the one-part read's."""
    dump = tmp_path / "cell"
    shutil.copytree(SOME[0], dump, ignore=shutil.ignore_patterns("expected"))
    jobs = dump / "jobs.xml"
    text = jobs.read_text()
    at = text.rindex(edit[0])  # the last job's: in the tail at any cut below 1.0
    jobs.write_text(text[:at] + edit[1] + text[at + len(edit[0]):])
    got = _outcome(dump)
    assert got == _one_part(dump, two_parts)
    assert got[0] == "DataError" and "jobs.xml:" in got[1]


def test_errors_keep_the_files_order(tmp_path, two_parts) -> None:
    """share_mon is read while the child reads, but its error still comes before a
    missing jobs.xml's; a bad dispatch file's after a bad jobs.xml's."""
    dump = tmp_path / "cell"
    source = next(d for d in SOME if (d / "share_mon").exists() and (d / "hosts").exists())
    shutil.copytree(source, dump, ignore=shutil.ignore_patterns("expected"))
    (dump / "share_mon").write_text("curr_time=1\tnode=x\n")  # fields missing
    (dump / "jobs.xml").unlink()
    with pytest.raises(DataError) as info:
        read_cell(dump)
    assert "share_mon" in info.value.message
    shutil.copy(source / "share_mon", dump / "share_mon")
    shutil.copy(source / "jobs.xml", dump / "jobs.xml")
    (dump / "hosts").write_text("hostname\n")  # a bad dispatch file
    text = (dump / "jobs.xml").read_text()
    at = text.rindex("<JB_priority>")
    (dump / "jobs.xml").write_text(text[:at] + "<JB_priority>x" + text[at + 13:])
    with pytest.raises(DataError) as info:
        read_cell(dump)
    assert "jobs.xml:" in info.value.message


# --- Forked itself ----------------------------------------------------------------------

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or not forked.two_cores(),
                                reason="needs os.fork and two cores")


@needs_fork
def test_forked_brings_back_a_value_larger_than_a_pipe() -> None:
    big = list(range(300_000))  # a few MB pickled: more than the pipe holds at once
    with forked.Forked(lambda: [x * 2 for x in big]) as child:
        assert child.result() == [x * 2 for x in big]


@needs_fork
def test_forked_child_that_raises_is_child_failed() -> None:
    def work():
        raise ValueError("in the child")

    with forked.Forked(work) as child, pytest.raises(forked.ChildFailed):
        child.result()


@needs_fork
def test_leaving_the_block_kills_a_child_never_asked() -> None:
    started = time.monotonic()
    with forked.Forked(lambda: time.sleep(60)) as child:
        pid = child.pid
    assert time.monotonic() - started < 10
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped already


def test_without_a_second_core_nothing_is_forked(monkeypatch) -> None:
    monkeypatch.setattr(forked, "two_cores", lambda: False)
    child = forked.Forked(lambda: 1)
    with pytest.raises(forked.ChildFailed):
        child.result()


def test_a_childs_bytes_come_back_as_they_are() -> None:
    """``ForkedBytes``: the pieces the child made, in chunks of at most 1 MiB that join
    to them (several chunks for a text past 1 MiB); a child that raised gives none."""
    pieces = [b"x" * 700_000, b"", b"y" * 900_000, b"end"]
    with forked.ForkedBytes(lambda: list(pieces)) as child:
        chunks = child.chunks()
    if forked.two_cores():
        assert b"".join(chunks) == b"".join(pieces) and max(map(len, chunks)) <= 1 << 20
    with forked.ForkedBytes(lambda: [b"a", 1 / 0]) as child, pytest.raises(  # type: ignore[list-item]
            forked.ChildFailed):
        child.chunks()
