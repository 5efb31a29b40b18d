"""Differential tests on the real fixture ads: condorlite reads and writes them exactly
as HTCondor's classad2 does.

Deliberate difference, tested here: condorlite keeps attributes in the order they were
read, classad2 stores them sorted by (length, case-insensitive name). The writers take
``sort=True`` to print in classad2's order; with it the output is byte-identical.
"""

from __future__ import annotations

import pytest

from condorlite.core.classad.formats import parse_ads, write_ads
from condorlite.core.classad.printer import htcondor_order, unparse

from .conftest import FIXTURE_FILES, FIXTURES, fixture_format, oracle_ads


def ours(name: str):
    with open(FIXTURES / name, encoding="utf-8") as handle:
        return list(parse_ads(handle, "auto", filename=name))


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_format_detected_from_content(name):
    explicit = list(parse_ads((FIXTURES / name).read_text(), fixture_format(name)))
    assert ours(name) == explicit
    assert explicit, "every fixture holds at least one ad"


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_same_ads_names_and_expressions(classad2, name):
    mine = ours(name)
    theirs = oracle_ads(classad2, name)
    assert len(mine) == len(theirs)
    for ad, cad in zip(mine, theirs, strict=True):
        # Same names with the same spelling (classad2 lists them in its own order).
        assert sorted(ad, key=htcondor_order) == list(cad.keys())
        for key in cad:
            assert unparse(ad[key]) == repr(cad.lookup(key)), key


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_writers_match_classad2(classad2, name):
    for ad, cad in zip(ours(name), oracle_ads(classad2, name), strict=True):
        assert ad.to_old(sort=True) == cad.printOld()
        assert ad.to_new(sort=True) == str(cad)
        assert ad.to_new(pretty=False, sort=True) == repr(cad)
        assert ad.to_json(sort=True) == cad.printJson()


@pytest.mark.parametrize("name", [n for n in FIXTURE_FILES if n.endswith(".json")])
def test_json_fixture_written_back_byte_for_byte(name):
    """The derived JSON files were written by classad2 in its order: sort=True
    reproduces them exactly."""
    text = (FIXTURES / name).read_text()
    assert write_ads(parse_ads(text, "json"), "json", sort=True) == text


@pytest.mark.parametrize("name", FIXTURE_FILES)
@pytest.mark.parametrize("fmt", ["old", "new", "json"])
def test_round_trip_through_every_format(name, fmt):
    ads = ours(name)
    text = write_ads(ads, fmt)
    again = list(parse_ads(text, fmt))
    assert again == ads
    # Insertion order survives a round trip (unsorted writers).
    assert [list(a) for a in again] == [list(a) for a in ads]


def test_insertion_order_differs_from_classad2_order(classad2):
    """The documented difference: our default order is the file's order."""
    name = "htc-pybind-test.old.ad"
    ad = ours(name)[0]
    cad = oracle_ads(classad2, name)[0]
    assert list(ad) != list(cad.keys())
    assert sorted(ad, key=htcondor_order) == list(cad.keys())
    first_line = (FIXTURES / name).read_text().splitlines()[0]
    assert ad.to_old().splitlines()[0] == first_line.strip()
