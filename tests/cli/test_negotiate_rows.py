"""``negotiate_run.matches_data``: the rows orjson writes (``fast``) are exactly the
plain rows' text (``convert``), whichever chunk or half a match falls in."""

from __future__ import annotations

import json

from condorlite import forked
from condorlite.cli import jsontext, negotiate_run
from condorlite.core.model import Match


def reference(doc: object) -> str:
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def test_rows_hold_every_match_field() -> None:
    """A field added to ``Match`` must be written too (the rows read it by name)."""
    assert set(Match._fields) == set(negotiate_run.MATCH_FIELDS)


def _matches() -> list[Match]:
    """Matches whose weights and amounts print in every way: whole, tiny (marked),
    signed zeros, repeated and distinct resources, preempting or not."""
    cpus = (("cpus", 2.0), ("memory", 2048.0))
    out = []
    for i, weight in enumerate([1.0, 3e-06, -0.0, 0.0, 2.5, 1e-4, 9e-05, 1.0, -0.0, 7.0]):
        resources = [(), cpus, (("cpus", 1.0), ("disk", 2e-05)), cpus][i % 4]
        out.append(Match(f"{i}.0", f"u{i % 3}@example.org", f"slot{i}@h", "rank",
                         weight, i % 5, i // 4 + 1,
                         "u9@example.org" if i % 3 == 0 else None,
                         f"{100 + i}.0" if i % 3 == 0 else None,
                         "slot1@h" if i % 2 else None, resources))
    return out


def _plain(m: Match) -> dict:
    return {"job": m.job, "submitter": m.submitter, "slot": m.slot, "reason": m.reason,
            "preempting": m.preempting, "preempted_job": m.preempted_job,
            "weight": m.weight, "autocluster": m.autocluster, "spin": m.spin,
            "partitionable": m.partitionable, "resources": dict(m.resources)}


def test_match_rows_are_json_dumps_text(monkeypatch) -> None:
    monkeypatch.setattr(forked, "two_cores", lambda: True)
    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 4)
    matches = _matches()
    for chunk in (1, 3, 8192):
        monkeypatch.setattr(jsontext, "CHUNK_ROWS", chunk)
        for size in (0, 1, 5, len(matches)):
            rows = negotiate_run.matches_data(matches[:size])
            want = reference({"matches": [_plain(m) for m in matches[:size]]})
            assert jsontext.dumps({"matches": rows}) == want, (chunk, size)
            # (never the json module's way: the fast rows' text went through)
            assert jsontext.fast_utf8({"matches": rows}) == want.encode()


def test_match_rows_iterate_as_plain_dicts() -> None:
    """The views read ``convert``'s rows: one new resources dict per match."""
    matches = _matches()
    rows = list(negotiate_run.matches_data(matches))
    assert rows == [_plain(m) for m in matches]
    assert rows[1]["resources"] is not rows[3]["resources"]
    assert type(rows[1]["weight"]) is jsontext.Tiny and str(rows[2]["weight"]) == "-0.0"


def test_a_chunk_orjson_refuses_is_written_by_json(monkeypatch) -> None:
    """A match orjson cannot write (an autocluster past 64 bits) sends its chunk, and
    only its chunk, to ``convert`` and json: the bytes are still json.dumps's."""
    monkeypatch.setattr(jsontext, "CHUNK_ROWS", 3)
    matches = _matches()
    matches[4] = matches[4]._replace(autocluster=2**70)
    rows = negotiate_run.matches_data(matches)
    assert jsontext.dumps({"m": rows}) == reference({"m": [_plain(m) for m in matches]})
