"""classad2's answers to the campaign's cases (``fuzz_cases``), in a child process.

classad2 can crash the interpreter (a segmentation fault), so this runs apart from the
tests: one JSON case per stdin line, one JSON answer per stdout line. An answer is
``{"unparsable": true}`` when classad2 refuses the text, ``{"binding": "<exception>"}``
when its Python binding cannot hand a value back (it decodes every string as UTF-8, so
a byte that is not UTF-8 in an ad it prints raises), else the answer fields that
``fuzz_ours`` computes the same way for condorlite.
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import sys

import classad2
import htcondor2  # noqa: F401  (daemon-mode semantics for classad2)

from tests.classad.fuzz_cases import LIST_DEPTH, element_text


class Unparsable(Exception):
    """classad2 refused the text."""


@functools.lru_cache(maxsize=8)
def ad(text: str):
    try:
        return classad2.ClassAd(text)
    except Exception as exc:
        raise Unparsable(text) from exc


def value_of(text: str, my, target, level: int = 0) -> object:
    """classad2's value of ``text`` in canonical form (as ``oracle_worker.oracle``), a
    string the binding cannot decode as its printed literal."""
    expr = classad2.ExprTree(text)
    try:
        value = expr.eval(my, target)
    except UnicodeDecodeError:
        return ["strbytes", repr(expr.simplify(my, target))]
    if isinstance(value, datetime.datetime):
        return ["abstime", classad2.ExprTree(f"string(({text}))").eval(my, target)]
    if isinstance(value, float) and classad2.ExprTree(f"isReltime(({text}))").eval(my, target):
        return ["reltime", "nan" if math.isnan(value) else value.hex()]
    if isinstance(value, classad2.Value):
        return "undefined" if value == classad2.Value.Undefined else "error"
    if isinstance(value, list):
        if level >= LIST_DEPTH:
            return ["list", len(value)]
        return [
            "list",
            [value_of(element_text(text, i), my, target, level + 1) for i in range(len(value))],
        ]
    if isinstance(value, classad2.ClassAd):
        return ["ad", sorted(k.lower() for k in value)]
    if isinstance(value, float):
        return ["real", "nan" if math.isnan(value) else value.hex()]
    return [type(value).__name__, value]


def eval_case(case: dict) -> dict:
    my, target = ad(case["my"]), ad(case["target"])
    text = case["text"]
    try:
        printed = repr(classad2.ExprTree(text))
    except Exception as exc:
        raise Unparsable(text) from exc
    value = value_of(text, my, target)
    answer = {"value": value, "print": printed}
    if not (isinstance(value, list) and value[0] in ("list", "ad")):
        answer["shown"] = repr(classad2.ExprTree(text).simplify(my, target))
    return answer


def match_case(case: dict) -> dict:
    return {"match": bool(ad(case["my"]).symmetricMatch(ad(case["target"])))}


def read_back(text: str, parser) -> str:
    """The ad read back from a writer's text, printed; ``parseAds``, since the binding's
    ``parseOne`` copies values through Python (a reltime literal becomes a real)."""
    try:
        ads = list(classad2.parseAds(text, parser))
    except UnicodeDecodeError:
        raise
    except Exception:
        return "refused"
    return str(ads[0]) if len(ads) == 1 else "refused"


def write_case(case: dict) -> dict:
    the_ad = ad(case["my"])
    old, json_text = the_ad.printOld(), the_ad.printJson()
    new, compact = str(the_ad), repr(the_ad)
    return {
        "old": old,
        "new": new,
        "compact": compact,
        "json": json_text,
        "old_back": read_back(old, classad2.ParserType.Old),
        "new_back": read_back(compact, classad2.ParserType.New),
        "json_back": read_back(json_text, classad2.ParserType.JSON),
    }


ANSWER = {"eval": eval_case, "match": match_case, "write": write_case}


def answer(case: dict) -> dict:
    try:
        return ANSWER[case["kind"]](case)
    except Unparsable:
        return {"unparsable": True}
    except Exception as exc:  # the binding, not the library: e.g. UnicodeDecodeError
        return {"binding": type(exc).__name__}


def main() -> None:
    sys.setrecursionlimit(20000)
    for line in sys.stdin:
        sys.stdout.write(json.dumps(answer(json.loads(line))) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
