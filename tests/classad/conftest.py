"""Shared helpers for the ClassAd tests: the classad2 oracle and the fixture files."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data"
FIXTURES = DATA / "classad-ads"
FIXTURE_FILES = sorted(p.name for p in FIXTURES.iterdir() if p.suffix in (".ad", ".ads", ".json"))


def fixture_format(name: str) -> str:
    """The format of a fixture file, from its name (see the fixtures README)."""
    if name.endswith(".json"):
        return "json"
    return "new" if ".new." in name else "old"


@pytest.fixture(scope="session")
def classad2():
    """HTCondor's C++ ClassAd library with daemon semantics (import htcondor2 first)."""
    pytest.importorskip("htcondor2")
    import classad2 as module

    return module


def oracle_expr(classad2, text: str):
    """classad2's parse of ``text`` as an expression, or None if it rejects it.

    The text goes in as an attribute of a new-syntax ad, with a newline before the
    closing bracket so that a trailing ``//`` comment cannot swallow it.
    """
    try:
        return classad2.ClassAd("[e = " + text + "\n]").lookup("e")
    except Exception:
        return None


def oracle_ads(classad2, name: str) -> list:
    """classad2's ads from a fixture file (JSON arrays split as the README says)."""
    text = (FIXTURES / name).read_text()
    fmt = fixture_format(name)
    if fmt == "json":
        body = text.strip()
        assert body.startswith("[") and body.endswith("]")
        chunks = [c for c in body[1:-1].split("\n,\n") if c.strip()]
        return [ad for chunk in chunks for ad in classad2.parseAds(chunk, classad2.ParserType.JSON)]
    parser = classad2.ParserType.Old if fmt == "old" else classad2.ParserType.New
    return list(classad2.parseAds(text, parser))
