"""``adeval.with_entries`` and ``with_restored``: the copy's ad is built in one C call
(``adeval._ADOPT``, ``oldscan.slotted``) where the compiled module is built, else by
``_adopt_python``; both give the same ad: the original's table copied with the given
entries (the very objects), no reader mark, the original's parent, the original
unchanged."""

from __future__ import annotations

import pytest

from condorlite.core import adeval
from condorlite.core.classad import parse_ad
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Literal


@pytest.fixture(params=["python", "compiled"])
def adopt(request, monkeypatch) -> str:
    """``adeval._ADOPT`` in Python and in C (where the compiled module is built)."""
    if request.param == "compiled":
        if adeval._ADOPT_COMPILED is None:
            pytest.skip("the compiled module is not built")
        monkeypatch.setattr(adeval, "_ADOPT", adeval._ADOPT_COMPILED)
    else:
        monkeypatch.setattr(adeval, "_ADOPT", adeval._adopt_python)
    return request.param


def test_with_entries_copies_the_table_and_keeps_the_parent(adopt) -> None:
    ad = parse_ad("Cpus = 8\nMemory = 1024\nStart = Cpus > 2")
    ad.layout = object()  # (a reader's mark: a copy must not carry it)
    parent = parse_ad("Outer = 1")
    ad.parent = parent
    before = dict(ad._attrs)
    entry = ("Cpus", Literal(2))
    new = adeval.with_entries(ad, {"cpus": entry, "disk": ("Disk", Literal(5))})
    assert type(new) is ClassAd and new is not ad
    assert new._attrs["cpus"] is entry and new._attrs["memory"] is ad._attrs["memory"]
    assert list(new._attrs) == ["cpus", "memory", "start", "disk"]
    assert new.parent is parent and new.layout is None
    assert ad._attrs == before and ad._attrs["cpus"] is before["cpus"]
    assert adeval.eval_attr(new, "Start") is False


def test_with_restored_undoes_with_entries(adopt) -> None:
    ad = parse_ad("Cpus = 8\nMemory = 1024")
    new = adeval.with_entries(ad, {"cpus": ("Cpus", Literal(2)), "gpus": ("Gpus", Literal(1))})
    back = adeval.with_restored(new, {"cpus": ad._attrs["cpus"], "gpus": None})
    assert back._attrs == ad._attrs and back._attrs["cpus"] is ad._attrs["cpus"]
    assert back.parent is None and back.layout is None and "gpus" in new._attrs
