"""The JSON document printer: one line, non-finite numbers as null."""

from __future__ import annotations

import json

from condorlite.cli.render import Result, render


def _printed(capsys, data) -> dict:
    render(Result(command="probe", data=data), as_json=True)
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one line, the newline closing it
    return json.loads(out)


def test_finite_data_is_printed_as_given(capsys):
    doc = _printed(capsys, {"a": [1, 2.5, (3, "x")], "b": None})
    assert doc["data"] == {"a": [1, 2.5, [3, "x"]], "b": None}
    assert doc["status"] == "ok" and doc["command"] == "probe"


def test_non_finite_numbers_become_null(capsys):
    data = {"eup": float("inf"), "rows": [{"x": float("nan"), "y": 1.0}, (float("-inf"),)]}
    doc = _printed(capsys, data)
    assert doc["data"] == {"eup": None, "rows": [{"x": None, "y": 1.0}, [None]]}
