"""Child process for the differential tests: evaluates expressions with classad2.

classad2 (HTCondor 25.x) can crash the interpreter on some inputs (a segmentation fault,
e.g. selecting an attribute from a list a function built), so the tests run it here,
in a separate process: one JSON request per stdin line ``{"text", "swap"}``, one JSON
answer per stdout line (the canonical value, or ``{"unparsable": true}``).
"""

from __future__ import annotations

import datetime
import json
import math
import sys

import classad2
import htcondor2  # noqa: F401  (daemon-mode semantics for classad2)

from tests.classad.gen_exprs import JOB_AD, SLOT_AD


class Unparsable(Exception):
    """classad2 refused the expression text."""


def canonical(value: object) -> object:
    if isinstance(value, float):
        return ["real", "nan" if math.isnan(value) else value.hex()]
    return [type(value).__name__, value]


def oracle(text: str, my, target) -> object:
    """classad2's value of ``text``; lists and records element by element. The bindings
    hand an abstime back as a datetime (without its offset) and a reltime as a float,
    so those are asked again: an abstime by its ``string()`` (local fields and offset),
    a float by ``isReltime``."""
    try:
        value = classad2.ExprTree(text).eval(my, target)
    except Exception as exc:  # classad2 raises its own types for parse failures
        raise Unparsable(text) from exc
    if isinstance(value, datetime.datetime):
        return ["abstime", classad2.ExprTree(f"string(({text}))").eval(my, target)]
    if isinstance(value, float) and classad2.ExprTree(f"isReltime(({text}))").eval(my, target):
        return ["reltime", "nan" if math.isnan(value) else value.hex()]
    if isinstance(value, classad2.Value):
        return "undefined" if value == classad2.Value.Undefined else "error"
    if isinstance(value, list):
        return ["list", [oracle(f"({text})[{i}]", my, target) for i in range(len(value))]]
    if isinstance(value, classad2.ClassAd):
        # Only the names: classad2 loses a record's enclosing scope when it is read
        # back through a subscript, so element-wise values would test classad2's
        # bindings rather than its evaluator.
        return ["ad", sorted(k.lower() for k in value)]
    return canonical(value)


def main() -> None:
    job, slot = classad2.ClassAd(JOB_AD), classad2.ClassAd(SLOT_AD)
    for line in sys.stdin:
        request = json.loads(line)
        my, target = (slot, job) if request["swap"] else (job, slot)
        try:
            answer = {"value": oracle(request["text"], my, target)}
        except Unparsable:
            answer = {"unparsable": True}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
