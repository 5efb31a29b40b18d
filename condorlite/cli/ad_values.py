"""An ad's attribute as the ``status`` views show it: evaluated, then typed or None.

Rules: an attribute the ad lacks is undefined (never looked up elsewhere: these ads
are read alone, with no match and no target); a value of another type than the one
asked for is None, so a view prints an empty cell rather than a wrong one. Numbers:
a boolean is not a number here (``JobStatus = true`` counts as no status); ``ad_int``
truncates a real and is None for NaN and the infinities.
"""

from __future__ import annotations

from condorlite.core.classad import ClassAd
from condorlite.core.classad.values import Error, Undefined


def ad_value(ad: ClassAd, name: str) -> object:
    """``name`` evaluated in ``ad`` alone; undefined when the ad lacks it."""
    return Undefined if ad.get(name) is None else ad.evaluate(name, None)


def ad_str(ad: ClassAd, name: str) -> str | None:
    value = ad_value(ad, name)
    return value if isinstance(value, str) else None


def ad_num(ad: ClassAd, name: str) -> float | None:
    value = ad_value(ad, name)
    if value is Undefined or value is Error or isinstance(value, bool):
        return None
    return float(value) if isinstance(value, int | float) else None


def ad_int(ad: ClassAd, name: str) -> int | None:
    number = ad_num(ad, name)
    return None if number is None or number != number or abs(number) == float("inf") \
        else int(number)
