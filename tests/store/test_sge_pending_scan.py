"""queue_instances.xml's pending lines: ``_jobs.scan_pending`` reads a plain list with
``bytes.find`` (``_pending_plain``) and anything else with its regular expressions;
both ways give the same entries, or the same error."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorlite.errors import DataError
from condorlite.store.sge_cell import _jobs

DATA = Path(__file__).resolve().parent.parent / "data" / "sge"
RECORDED = sorted(DATA.rglob("queue_instances.xml"))

HEAD = b"<?xml version='1.0'?>\n<job_info>\n<queue_info></queue_info>\n<job_info>\n"
TAIL = b"</job_info>\n</job_info>\n"


def _block(number: bytes, state: bytes = b"qw", tasks: bytes | None = None) -> bytes:
    inner = b"<JB_job_number>" + number + b"</JB_job_number><JB_name>a</JB_name>"
    inner += b"<state>" + state + b"</state>"
    if tasks is not None:
        inner += b"<tasks>" + tasks + b"</tasks>"
    return b'<job_list state="pending">' + inner + b"<slots>1</slots></job_list>\n"


def _careful(data: bytes, monkeypatch) -> object:
    with monkeypatch.context() as patch:
        patch.setattr(_jobs, "_pending_plain", lambda data: None)
        return _outcome(data)


def _outcome(data: bytes) -> object:
    try:
        return _jobs.scan_pending(data, "q")
    except DataError as exc:
        return exc.message


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_every_recorded_list_is_plain_and_read_alike(path: Path, monkeypatch) -> None:
    data = path.read_bytes()
    assert _jobs._pending_plain(data) is not None
    assert _outcome(data) == _careful(data, monkeypatch)


ODD = {
    "plain": [_block(b"7"), _block(b"8", b"hqw", b"1-4:1")],
    "none": [],
    "blanks around values": [_block(b" 7 ", b" qw ", b" 1,3 ")],
    "unclosed block": [_block(b"7")[:-12], _block(b"8")],
    "block opened inside a block": [_block(b"7").replace(b"<slots>", _block(b"9") + b"<slots>")],
    "no job number": [_block(b"7").replace(b"JB_job_number", b"JB_x")],
    "no state": [_block(b"7").replace(b"<state>qw</state>", b"")],
    "a tag inside a value": [_block(b"7<b>x</b>")],
    "a value then a good one": [_block(b"7").replace(
        b"<JB_name>", b"<JB_job_number>x<y/></JB_job_number><JB_name>")],
    "tasks not closed": [_block(b"7", tasks=b"1-2").replace(b"</tasks>", b"</task>")],
    "bad number": [_block(b"seven")],
    "bad tasks": [_block(b"7", tasks=b"1-x")],
    "not UTF-8": [_block(b"7", state=b"q\xffw")],
    "fields in another order": [
        b'<job_list state="pending"><state>r</state><tasks>2</tasks>'
        b"<JB_job_number>5</JB_job_number></job_list>"],
    "closing tag only": [b"</job_list>", _block(b"7")],
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_lists_are_read_as_the_regular_expressions_read_them(name: str, monkeypatch) -> None:
    data = HEAD + b"".join(ODD[name]) + TAIL
    assert _outcome(data) == _careful(data, monkeypatch)


def test_the_plain_way_takes_the_plain_lists_only() -> None:
    plain = HEAD + b"".join(ODD["plain"]) + TAIL
    entries = _jobs._pending_plain(plain)
    assert entries is not None
    assert [(e.job, e.tasks, e.state) for e in entries] == [(7, None, "qw"),
                                                         (8, (1, 2, 3, 4), "hqw")]
    for name in ("unclosed block", "no state", "a tag inside a value", "bad number",
                 "tasks not closed", "block opened inside a block"):
        assert _jobs._pending_plain(HEAD + b"".join(ODD[name]) + TAIL) is None, name
