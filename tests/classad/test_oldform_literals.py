"""The old-form reader's literal fast path (``oldform._plain_literal``, reached through
``old_line``: strings with ``\\"`` escapes, integers, reals, the values real ads do not
repeat) against the line regex and parser path (``oldform._old_line_slow``): every
line must give the same name, spelling and value (same type too), and a bad line must
be refused with the same file, line and column through the reader."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from condorlite.core.classad import ClassAdSyntaxError, parse_ads
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.interning import clear_all
from condorlite.core.classad.oldform import _old_line_slow, old_line
from condorlite.errors import DataError
from condorlite.store.adfiles import read_ads

HEADS = st.sampled_from(["Name = ", "Name=", "  Cpus\t=\t", "x_1 =  ", "GlobalJobId = ",
                         "A =", "_ = "])
# String bodies mixing what the old string rule treats specially: quotes (escaped or
# not), backslashes (before a quote, at the end, doubled), NUL, CR, non-ASCII.
BODY_PIECES = st.sampled_from(['a', ' ', '\\"', '\\', '\\\\', '"', '\x00', '\r', 'é',
                               '\udcff', '=', '\t', 'x" y'])
STRINGS = st.lists(BODY_PIECES, max_size=6).map(lambda p: '"' + "".join(p) + '"')
NUMBERS = st.one_of(
    st.integers(min_value=-10**20, max_value=10**20).map(str),
    st.sampled_from(["0", "-0", "007", "+5", "1.5", "-0.0", "1.25e3", "2.5E-7", "1e3",
                     ".5", "1.", "123456789012345678", "1234567890123456789",
                     "-999999999999999999", "9223372036854775808"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
TAILS = st.sampled_from(["\n", "", " \n", "\t\r\n", "\r\n", "\f\n", " x\n", '"\n'])


def _outcome(read, raw: str):
    try:
        hit = read(raw, 3, "f.ads")
    except ClassAdSyntaxError as exc:
        return ("error", exc.kind, exc.message, exc.line, exc.column)
    if hit is None:
        return None
    key, (spelling, expr) = hit
    return key, spelling, expr, type(getattr(expr, "value", None))


@settings(max_examples=600, deadline=None)
@given(HEADS, st.one_of(STRINGS, NUMBERS), TAILS, st.booleans())
@example("A = ", '"a\\"b"', "\n", True)
@example("A = ", '"ends with a backslash\\"', "\n", True)
@example("A = ", '"\\"\\""', "\n", True)
@example("A = ", '"x"y"', "\n", True)
@example("A = ", '"nul\x00"', "\n", True)
@example("A = ", "-0", "\n", True)
@example("A = ", "1234567890123456789", "\n", True)
def test_a_literal_line_reads_as_the_line_regex_and_parser_read_it(head, value, tail, cold):
    if cold:
        clear_all()
    raw = head + value + tail
    expected = _outcome(_old_line_slow, raw)
    assert _outcome(old_line, raw) == expected, raw
    assert _outcome(old_line, raw) == expected, raw  # again, from the caches


def _ads(text: str, cold: bool):
    if cold:
        clear_all()
    return [[(k, s, e, type(e.value) if isinstance(e, Literal) else None)
             for k, (s, e) in ad._attrs.items()]
            for ad in parse_ads(io.StringIO(text, newline="\n"), "old")]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(HEADS, st.one_of(STRINGS, NUMBERS), TAILS), min_size=1,
                max_size=30), st.booleans())
def test_whole_ads_read_in_bulk_as_line_by_line(lines, cold):
    """Ads of unique lines (the bulk path's case) read as the line path reads them,
    or fail at the same line and column."""
    text = "".join(h + v + (t if t.endswith("\n") else t + "\n") for h, v, t in lines)
    expected, error = [], None
    attrs: dict = {}
    for lineno, raw in enumerate(io.StringIO(text, newline="\n").readlines(), 1):
        try:
            hit = _old_line_slow(raw, lineno, None)
        except ClassAdSyntaxError as exc:
            error = (exc.line, exc.column, exc.message)
            break
        if hit is not None:
            key, entry = hit
            held = attrs.setdefault(key, entry)
            if held is not entry:
                attrs[key] = (held[0], entry[1])
    else:
        expected = [[(k, s, e, type(e.value) if isinstance(e, Literal) else None)
                     for k, (s, e) in attrs.items()]]
    try:
        got = _ads(text, cold)
    except ClassAdSyntaxError as exc:
        assert error == (exc.line, exc.column, exc.message)
        return
    assert error is None
    assert got == expected


@pytest.mark.parametrize(("bad", "column"), [
    ('Args = "never closed\n', 8),
    ('Args = "x"y"\n', 12),
    ("KFlops = 007 8\n", 10),
    ('Out = "a\x00b"\n', 7),
    ("LoadAvg = 0.5.5\n", 14),
])
def test_a_bad_line_among_unique_lines_is_named_with_file_line_and_column(
        tmp_path: Path, bad: str, column: int):
    """A file of realistic-looking jobs, every one with lines seen once, and a bad
    line late in it: refused (exit 65) at that line and column, as the line path
    says."""
    clear_all()
    good = "".join(
        f'ClusterId = 1\nProcId = {i}\nGlobalJobId = "sched#1.{i}#1700000000"\n'
        f'Args = "--seed {i * 7919}"\nLoadAvg = 0.{i:04d}\n\n' for i in range(400))
    path = tmp_path / "jobs.ads"
    path.write_text(good + bad + good)
    with pytest.raises(DataError) as info:
        read_ads([path])
    line = good.count("\n") + 1
    with pytest.raises(ClassAdSyntaxError) as slow:
        _old_line_slow(bad, line, str(path))
    assert (slow.value.line, slow.value.column) == (line, column)
    assert info.value.exit_code == 65
    assert str(info.value) == f"{path}:{line}:{column}: {slow.value.message}"
