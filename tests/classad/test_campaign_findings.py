"""Disagreements the differential campaign (issue 19, ``benchmarks/classad_campaign.py``)
found and condorlite fixed, each pinned against classad2 with the smallest case."""

from __future__ import annotations

from condorlite.core.classad import parse_ad

TIMES = (
    '[ a = relTime("01:30"); b = absTime("2024-01-01T00:00:00Z"); c = { relTime("5") }; '
    'd = [ e = relTime("-1+00:02:00") ]; f = relTime("") ]'
)


def test_json_writer_prints_a_reltime_literal_as_its_seconds(classad2):
    """HTCondor's parser makes ``relTime("...")`` a reltime literal, which its JSON
    writer prints as a real (an abstime literal stays an expression)."""
    ours = parse_ad(TIMES, "new").to_json(sort=True)
    assert ours == classad2.ClassAd(TIMES).printJson()
    assert '"a": 90.0' in ours and '"f": 0.0' in ours and '"e": -86520.0' in ours


def test_a_reltime_literal_read_back_from_json_is_a_real(classad2):
    text = parse_ad(TIMES, "new").to_json(sort=True)
    theirs = next(iter(classad2.parseAds(text, classad2.ParserType.JSON)))
    assert parse_ad(text, "json").to_new(sort=True) == str(theirs)
