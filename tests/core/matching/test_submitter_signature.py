"""``request_lists.submitter_signature``: the job ad's ``Submitter*``/``Submittor*``
bindings in name order, its string-compare bounds passing over no such name."""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.classad import parse_ads
from condorlite.core.matching import request_lists
from condorlite.core.matching.offers import SUBMITTER_PREFIXES


def test_the_prefix_bounds_hold_every_prefix() -> None:
    low, high = request_lists._PREFIX_LOW, request_lists._PREFIX_HIGH
    for prefix in SUBMITTER_PREFIXES:
        assert low <= prefix < high
        assert low <= prefix + "\uffff" < high


def test_the_signature_is_every_submitter_binding_in_name_order() -> None:
    names = ["SubmitterUserPrio", "SubmittorPrio", "Submitter", "SubmitterZ", "Submittes",
             "Submittera", "Submittp", "Sub", "Owner", "submittorz", "ZZ", "A"]
    text = "\n".join(f"{name} = {k}" for k, name in enumerate(names))
    (ad,) = parse_ads(text)
    expected = tuple(sorted(
        (n, adeval.attr(ad, n)) for n in (name.lower() for name in names)
        if n.startswith(SUBMITTER_PREFIXES)))
    assert [n for n, _ in expected] == [
        "submitter", "submittera", "submitteruserprio", "submitterz", "submittorprio",
        "submittorz"]
    assert request_lists.submitter_signature(ad) == expected
