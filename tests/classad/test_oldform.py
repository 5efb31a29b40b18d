"""The old-form reader's fast paths (``oldform.py``) against plain line-by-line
reading: the line fast path gives what the regex-and-parser path gives, and reading in
batches (of any size, with the caches cold or warm) gives the ads and errors that
reading one line at a time gives."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.classad import ClassAd, ClassAdSyntaxError, oldform, parse_ads
from condorlite.core.classad.interning import clear_all
from condorlite.core.classad.oldform import _old_line_slow, old_line

NAMES = st.sampled_from(["Cpus", "cpus", "CPUS", "Name", "_x1", "GlobalJobId", "Owner",
                         "a", "A", "Memory", "x y", "1x", "Näme", "#c", "", "My.Cpus"])
VALUES = st.sampled_from([
    "1", "0", "007", "-5", "+5", "12345678901234567890", "9223372036854775807",
    "1.5", "1e3", "true", "FALSE", "undefined", "error", '"str"', '""', '"a\\"b"',
    '"back\\\\slash"', '"x"y"', '"\\n"', '"unterminated', "Cpus + 1", "(Cpus", "=", "= 1",
    "MY.Memory >= TARGET.RequestMemory", "{1, 2}", "[a = 1]", "\u00b2", "١٢", "",
    '"caf\u00e9"', "2 ==", "strcat(\"a\", \"b\")",
])
BLANKS = st.text(alphabet=" \t", max_size=2)
TRAILING = st.text(alphabet=" \t\f\v\r", max_size=2)


@st.composite
def lines(draw):
    """One raw line (with its line end), attribute lines mostly, some odd ones."""
    body = (draw(BLANKS) + draw(NAMES) + draw(BLANKS) + draw(st.sampled_from(["=", "=="]))
            + draw(BLANKS) + draw(VALUES) + draw(TRAILING))
    line = draw(st.one_of(
        st.just(body),
        st.sampled_from(["", " ", "\t", "# a comment", "  # indented comment", "\f",
                         "no equals sign", "= 3"]),
    ))
    return line + draw(st.sampled_from(["\n", "\r\n", "\n", ""]))


def _outcome(read, raw, lineno=7):
    try:
        hit = read(raw, lineno, "f.ads")
    except ClassAdSyntaxError as exc:
        return ("error", exc.kind, exc.message, exc.line, exc.column, exc.source)
    if hit is None:
        return None
    key, (spelling, expr) = hit
    value = getattr(expr, "value", None)
    return key, spelling, type(expr), expr, type(value), repr(value)


@settings(max_examples=400, deadline=None)
@given(lines(), st.booleans())
def test_line_fast_path_agrees_with_the_regex_and_parser_path(raw, cold):
    if cold:
        clear_all()
    slow = _outcome(_old_line_slow, raw)
    assert _outcome(old_line, raw) == slow
    assert _outcome(old_line, raw) == slow  # again, from the caches


def test_a_known_name_with_equals_equals_is_still_an_error():
    old_line("Cpus = 1\n", 1, None)  # "Cpus " is now a known head
    with pytest.raises(ClassAdSyntaxError) as info:
        old_line("Cpus == 1\n", 3, "f")
    assert (info.value.line, info.value.column) == (3, 1)


# -- batches ----------------------------------------------------------------------------


def reference(text: str, filename: str):
    """Line by line, every line through the regex-and-parser path (no line cache)."""
    ads, attrs = [], {}
    for lineno, raw in enumerate(io.StringIO(text, newline="").readlines(), 1):
        hit = _old_line_slow(raw, lineno, filename)
        if hit is None:
            if attrs and not raw.strip(" \t\r\n\f\v"):
                ads.append(attrs)
                attrs = {}
            continue
        key, entry = hit
        held = attrs.setdefault(key, entry)
        if held is not entry:
            attrs[key] = (held[0], entry[1])
    if attrs:
        ads.append(attrs)
    return ads


def _shape(ad_list):
    return [[(key, spelling, expr, type(getattr(expr, "value", None)))
             for key, (spelling, expr) in attrs.items()] for attrs in ad_list]


def _read(source, filename):
    try:
        return _shape(ad._attrs for ad in parse_ads(source, "old", filename=filename))
    except ClassAdSyntaxError as exc:
        return ("error", exc.kind, exc.message, exc.line, exc.column)


def _expected(text, filename):
    try:
        return _shape(reference(text, filename))
    except ClassAdSyntaxError as exc:
        return ("error", exc.kind, exc.message, exc.line, exc.column)


class Lines:
    """An iterable of lines that is not a file object (no ``readlines``)."""

    def __init__(self, text: str) -> None:
        self.lines = io.StringIO(text, newline="").readlines()

    def __iter__(self):
        return iter(self.lines)


@settings(max_examples=200, deadline=None)
@given(st.lists(lines(), max_size=40), st.sampled_from([1, 7, 40, 1 << 16]), st.booleans())
def test_batches_of_any_size_read_what_line_by_line_reading_reads(raw_lines, chunk, cold):
    text = "".join(line if line.endswith("\n") else line + "\n" for line in raw_lines)
    expected = _expected(text, "b.ads")
    if cold:
        clear_all()
    old_chunk = oldform.CHUNK
    oldform.CHUNK = chunk
    try:
        assert _read(io.StringIO(text, newline=""), "b.ads") == expected
        assert _read(Lines(text), "b.ads") == expected
    finally:
        oldform.CHUNK = old_chunk


def test_an_error_late_in_a_batch_comes_after_the_ads_before_it():
    good = "".join(f"A = {i}\nB = \"same\"\n\n" for i in range(50))
    text = good + "C = (1 +\n" + good
    ads = parse_ads(io.StringIO(text, newline=""), "old", filename="late.ads")
    taken = []
    with pytest.raises(ClassAdSyntaxError) as info:
        for ad in ads:
            taken.append(ad)
    assert len(taken) == 50
    assert info.value.line == 151 and info.value.filename == "late.ads"


def test_repeats_within_one_ad_and_one_batch():
    text = "A = 1\nb = 2\na = 3\n\nA = 1\nb = 2\na = 3\n"
    for _ in range(2):
        first, second = parse_ads(io.StringIO(text, newline=""), "old")
        for ad in (first, second):
            assert isinstance(ad, ClassAd)
            assert list(ad) == ["A", "b"]
            assert ad["a"].value == 3


def test_lines_split_by_the_file_objects_own_rule():
    """A lone CR ends a line for a file opened with newline='' (as adfiles opens them)."""
    (ad,) = parse_ads(io.StringIO("A = 1\rB = 2\r\nC = 3\n", newline=""), "old")
    assert [ad[name].value for name in "ABC"] == [1, 2, 3]
