"""Where an ad meets a reader's edges, as HTCondor's library meets them. Integer
literals of any length read as HTCondor reads them (issue 17 item 2, issue
19): out of the int64 range they are 0, in every reader, where Python's ``int`` would
refuse a text of over 4,300 digits (it was an internal error from a job ad)."""

from __future__ import annotations

import pytest

from condorlite.core.classad import parse_ads
from condorlite.core.classad.values import int_literal

BIG = "1" + "0" * 5000


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (BIG, 0),
        ("-" + BIG, 0),
        ("9223372036854775807", 2**63 - 1),
        ("9223372036854775808", 0),
        ("-9223372036854775808", -(2**63)),
        ("-9223372036854775809", 0),
        ("0" * 30 + "7", 7),
    ],
)
def test_int_literal(text: str, value: int) -> None:
    assert int_literal(text) == value


@pytest.mark.parametrize(
    "text",
    [
        f"A = {BIG}\nB = 1\n",  # old form
        f"[ A = {BIG}; B = 1 ]",  # new form
        f'[{{"A": {BIG}, "B": 1}}]',  # JSON
    ],
    ids=["old", "new", "json"],
)
def test_every_reader_reads_a_huge_literal_as_zero(text: str) -> None:
    (ad,) = list(parse_ads(text, "auto"))
    assert ad.evaluate("A") == 0 and ad.evaluate("B") == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('a = "x\u2028y"\nb = 2\n', {"a": "x\u2028y", "b": 2}),
        ('a = "x\u0085y"\n', {"a": "x\u0085y"}),
        ("a = 1\r\nb = 2\r\n", {"a": 1, "b": 2}),
    ],
    ids=["u2028", "nel", "crlf"],
)
def test_old_form_lines_end_at_newline_only(text: str, expected: dict) -> None:
    """HTCondor splits an old-form ad at ``\\n`` only (issue 19, readers): a string
    holding U+2028 or NEL is one value, not a broken line."""
    (ad,) = list(parse_ads(text, "old"))
    assert {name: ad.evaluate(name) for name in expected} == expected


def test_a_vertical_tab_does_not_start_an_attribute() -> None:
    """``a = 1<VT>b = 2`` was read as two attributes; HTCondor reads one line (and
    drops what follows the value, where condorlite, strict, names line and column)."""
    from condorlite.core.classad import ClassAdSyntaxError

    with pytest.raises(ClassAdSyntaxError):
        list(parse_ads("a = 1\x0bb = 2\n", "old"))


@pytest.mark.parametrize("text", ['[{"": 1, "a": 2}]', '[\n{\n"": 1,\n"a": 2\n}\n]\n'],
                         ids=["one-line", "multi-line"])
def test_json_attribute_of_no_name_is_refused(text: str) -> None:
    """classad2 refuses ``{"": 1}``; condorlite read it (issue 19, readers)."""
    from condorlite.core.classad import ClassAdSyntaxError

    with pytest.raises(ClassAdSyntaxError, match="must not be empty"):
        list(parse_ads(text, "json"))
