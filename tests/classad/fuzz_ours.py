"""condorlite's answers to the campaign's cases, in the form ``fuzz_oracle`` gives
classad2's (see there): the same fields, computed with condorlite's public API.

Where classad2's Python binding cannot hand a value back (a string holding a byte that
is not UTF-8), it answers with the printed literal; condorlite does the same for a
string holding such a byte (a lone surrogate, ``values.utf8``).
"""

from __future__ import annotations

import functools
import math

from condorlite.core.classad import ClassAd, parse_ad, parse_expr, symmetric_match
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.evaluator import evaluate
from condorlite.core.classad.formats import parse_ads
from condorlite.core.classad.printer import unparse, unparse_value
from condorlite.core.classad.timevalues import rel_secs, time_text
from condorlite.core.classad.values import AbsTime, Error, RelTime, Undefined

from .fuzz_cases import LIST_DEPTH, element_text


class Unparsable(Exception):
    """condorlite refused the text."""


@functools.lru_cache(maxsize=8)
def ad(text: str) -> ClassAd:
    try:
        return parse_ad(text, "new")
    except ClassAdSyntaxError as exc:
        raise Unparsable(text) from exc


def _has_stray_byte(text: str) -> bool:
    return any("\udc80" <= ch <= "\udcff" for ch in text)


def value_of(text: str, my, target, level: int = 0) -> object:
    value = evaluate(text, my, target, now=None)
    if value is Undefined:
        return "undefined"
    if value is Error:
        return "error"
    if isinstance(value, list):
        if level >= LIST_DEPTH:
            return ["list", len(value)]
        return [
            "list",
            [value_of(element_text(text, i), my, target, level + 1) for i in range(len(value))],
        ]
    if isinstance(value, ClassAd):
        return ["ad", sorted(k.lower() for k in value)]
    if type(value) is AbsTime:
        return ["abstime", time_text(value)]
    if type(value) is RelTime:
        return ["reltime", "nan" if math.isnan(value) else float(value).hex()]
    if isinstance(value, float):
        return ["real", "nan" if math.isnan(value) else value.hex()]
    if isinstance(value, str) and _has_stray_byte(value):
        return ["strbytes", unparse_value(value)]
    return [type(value).__name__, value]


def shown(value: object) -> str:
    """The value printed as classad2's ``simplify()`` prints it: that makes a literal
    with ``Literal::MakeLiteral``, which reads a reltime as whole seconds (a C int)."""
    if type(value) is RelTime:
        value = RelTime(float(rel_secs(value)))
    return unparse_value(value, sort=True)


def eval_case(case: dict) -> dict:
    my, target = ad(case["my"]), ad(case["target"])
    text = case["text"]
    try:
        tree = parse_expr(text)
    except ClassAdSyntaxError as exc:
        raise Unparsable(text) from exc
    value = value_of(text, my, target)
    answer = {"value": value, "print": unparse(tree, sort=True)}
    if not (isinstance(value, list) and value[0] in ("list", "ad")):
        answer["shown"] = shown(evaluate(tree, my, target, now=None))
    return answer


def match_case(case: dict) -> dict:
    return {"match": bool(symmetric_match(ad(case["my"]), ad(case["target"]), now=None))}


def read_back(text: str, fmt: str) -> str:
    try:
        ads = list(parse_ads(text, fmt))
    except ClassAdSyntaxError:
        return "refused"
    return ads[0].to_new(sort=True) if len(ads) == 1 else "refused"


def write_case(case: dict) -> dict:
    the_ad = ad(case["my"])
    old, json_text = the_ad.to_old(sort=True), the_ad.to_json(sort=True)
    compact = the_ad.to_new(pretty=False, sort=True)
    return {
        "old": old,
        "new": the_ad.to_new(sort=True),
        "compact": compact,
        "json": json_text,
        "old_back": read_back(old, "old"),
        "new_back": read_back(compact, "new"),
        "json_back": read_back(json_text, "json"),
    }


ANSWER = {"eval": eval_case, "match": match_case, "write": write_case}


def answer(case: dict) -> dict:
    """condorlite's answer; an exception other than a refusal is a finding (``crash``)."""
    try:
        return ANSWER[case["kind"]](case)
    except Unparsable:
        return {"unparsable": True}
    except Exception as exc:
        return {"crash": f"{type(exc).__name__}: {str(exc)[:200]}"}
