"""The JSON document printer: one line, non-finite numbers as null; plain text printed
as rich prints it."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.cli import render as rendering
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


# -- print_text: rich's characters without rich's renderer ------------------------------

TEXT_PIECES = ["a", "é", "字", " ", "  ", ":", "::", ":smile:", ":+1:", ":red_heart-text:",
               ":not_an_emoji:", ":smile", "\n", "\n\n", "\r\n", "\r", "\x07", "\x08",
               "\x0b", "\x0c", "\x1b[31m", "[bold]x[/bold]", "\u200b", "\t", "  \n",
               "slot1@h.example.org", "12:30:00", "-", "|"]


def _file_console(stderr: bool = False):
    console = rendering.stderr_console() if stderr else rendering.stdout_console()
    console.file = io.StringIO()
    return console


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TEXT_PIECES), max_size=30).map("".join), st.booleans())
def test_print_text_writes_what_rich_prints(text, stderr):
    ours, theirs = _file_console(stderr), _file_console(stderr)
    rendering.print_text(ours, text)
    # print_text shows control characters escaped (issue 17: names are data, never
    # terminal input); with that done, it writes what rich prints.
    theirs.print(rendering.visible(text), markup=False, highlight=False)
    assert ours.file.getvalue() == theirs.file.getvalue()


def test_control_characters_are_shown_escaped():
    console = _file_console()
    rendering.print_text(console, "alice\x1b]0;owned\x07@x\x9b2J and\nnext line")
    assert console.file.getvalue() == (
        "alice\\x1b]0;owned\\x07@x\\x9b2J and\nnext line\n")


def test_print_text_on_a_non_terminal_does_not_go_through_rich_rendering(monkeypatch):
    console = _file_console()
    monkeypatch.setattr(type(console), "print", lambda *a, **k: pytest.fail("rendered"))
    rendering.print_text(console, "Matches (1)\n  1.0  a@x :smile:\r")
    smile = "\N{SMILING FACE WITH OPEN MOUTH AND SMILING EYES}"
    assert console.file.getvalue() == f"Matches (1)\n  1.0  a@x {smile}\\x0d\n"


# -- negotiate_view._table: one format call per line -----------------------------------


def _reference_table(headers, rows, right):
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    return [("  " + "  ".join(c.rjust(w) if i in right else c.ljust(w)
                              for i, (c, w) in enumerate(zip(cells, widths, strict=True))))
            .rstrip() for cells in [headers, *rows]]


CELLS = st.text(alphabet=st.sampled_from(["a", "é", "字", " ", "{", "}", "0", ":", "%"]),
                max_size=6)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(CELLS, min_size=n, max_size=n),
    st.lists(st.lists(CELLS, min_size=n, max_size=n), max_size=6),
    st.sets(st.integers(0, n - 1)))))
def test_table_lines_pad_as_ljust_and_rjust(table):
    from condorlite.cli.negotiate_view import _table

    headers, rows, right = table
    assert _table(headers, rows, right) == _reference_table(headers, rows, right)


def test_json_goes_out_as_utf8_bytes_after_pending_text(monkeypatch) -> None:
    """What orjson writes goes to stdout's byte layer in UTF-8, whatever the text
    layer's encoding, after the text the layer still holds; what only json can write
    (a lone surrogate) goes through the text layer as before."""
    import io
    import sys

    from condorlite.cli import render

    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", errors="backslashreplace")
    monkeypatch.setattr(sys, "stdout", out)
    out.write("before\n")  # held by the text layer
    render.print_json({"name": "é", "n": 1.5})
    assert raw.getvalue() == 'before\n{"name":"é","n":1.5}\n'.encode()
    render.print_json({"name": "\udcff"})  # orjson refuses a surrogate: json writes it
    out.flush()
    assert raw.getvalue().endswith(b'{"name":"\\udcff"}\n')
