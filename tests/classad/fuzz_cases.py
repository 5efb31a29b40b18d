"""Scenarios for the differential campaign: freshly generated MY and TARGET ads and the
cases asked of both libraries about them.

A scenario (``scenario(seed)``) is two random ads in new-form text, each with 4-14
attributes: names drawn from a pool of admin-like names, random identifiers and case
variants (``memory``/``MEMORY``), values of every type (literals, byte strings, huge
integers, lists, records, time values) and expressions that refer to each other,
scoped or not (``MY.``, ``TARGET.``), cycles included; each ad has a Requirements.
Then the cases, each a JSON-able dict both sides answer (``fuzz_oracle``/``fuzz_ours``):

* ``eval``: an expression evaluated with MY and TARGET (type and value, reals bit for
  bit), and its printed form;
* ``match``: a symmetric match of the two ads (sometimes with a 199-clause ``||``);
* ``write``: an ad through the old, new (pretty and compact) and JSON writers, and each
  text read back by both libraries and printed again.

Ads are new ones for every scenario, so a name, a cross reference or a value that only
some ad shape exposes is eventually met.
"""

from __future__ import annotations

import random
import re

from . import gen_exprs as gx
from .fuzz_exprs import FuzzGenerator

NAME_POOL = (
    "Memory", "Cpus", "Disk", "Owner", "Arch", "OpSys", "Rank", "Start", "x", "a", "b",
    "RequestMemory", "RequestCpus", "KFlops", "LoadAvg", "Name", "Tags", "Ad", "Version",
    "Is_Ok", "_u", "T0", "self", "parent", "Machine", "Activity",
)  # fmt: skip
EXPRS_PER_SCENARIO = 8
# Values that crash classad2 (deliberate differences, docs/classad.md), so the ads hold
# none: countMatches/evalInEachContext whose expression is the attribute holding the
# call, and a list a function built, from which an expression may select (X.a).
CRASHERS = re.compile(
    r"(?i)\b(countmatches|evalineachcontext|split|splitusername|splitslotname|argstolist)\s*\("
)
LIST_DEPTH = 3  # list elements are compared this many levels down; deeper, the length
NO_PARENS = re.compile(r"[A-Za-z_][A-Za-z_0-9.]*$")
SUBSCRIPTS = re.compile(r"(\[[0-9]+\])+$")


def element_text(text: str, index: int) -> str:
    """The text of element ``index`` of the list ``text`` evaluates to. A bare
    reference or a list literal takes the subscript without parentheses, so that a
    list nested 199 deep is not pushed past the parser's depth limit."""
    base = SUBSCRIPTS.sub("", text)
    tight = NO_PARENS.match(base) or (base.startswith("{") and _one_group(base))
    return f"{text}[{index}]" if tight else f"({text})[{index}]"


def _one_group(text: str) -> bool:
    """Whether ``text`` is one balanced ``{...}`` group (quotes respected)."""
    depth, quoted, escaped = 0, False, False
    for i, ch in enumerate(text):
        if quoted:
            quoted, escaped = (quoted, False) if escaped else (ch != '"', ch == "\\")
            continue
        if ch == '"':
            quoted = True
        elif ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
            if depth == 0 and i != len(text) - 1:
                return False
    return depth == 0


def random_name(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.7:
        name = rng.choice(NAME_POOL)
        return name.upper() if rng.random() < 0.1 else name
    first = rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
    rest = "".join(
        rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(rng.randint(0, 8))
    )
    return first + rest


def ad_text(gen: FuzzGenerator, names: list[str], requirements: str) -> str:
    """A new-form ad: each name bound to a random expression over all names."""
    rng = gen.rng
    attrs = []
    for name in names:
        r = rng.random()
        if r < 0.3:
            value = gen.leaf()
        elif r < 0.4:
            value = gen.list_(2)
        elif r < 0.5:
            value = gen.record(2)
        else:
            value = gen.expr(rng.randint(1, 3))
        if CRASHERS.search(value):
            value = gen.leaf()  # see CRASHERS
        attrs.append(f"{name} = {value}")
    attrs.append(f"Requirements = {requirements}")
    rng.shuffle(attrs)
    return "[ " + "; ".join(attrs) + " ]"


def ad_names(rng: random.Random) -> list[str]:
    """4-14 distinct (case-insensitively) attribute names, Requirements excluded."""
    names: dict[str, str] = {}
    wanted = rng.randint(4, 14)
    while len(names) < wanted:
        name = random_name(rng)
        if name.lower() not in (
            "requirements",
            "my",
            "target",
            "true",
            "false",
            "undefined",
            "error",
            "is",
            "isnt",
            "parent",
            "self",
        ):
            names.setdefault(name.lower(), name)
    return list(names.values())


def requirements(gen: FuzzGenerator) -> str:
    r = gen.rng.random()
    if r < 0.05:
        return " || ".join(gen.clause() for _ in range(199))
    if r < 0.3:
        return "true"
    if r < 0.6:
        return " && ".join(gen.clause() for _ in range(gen.rng.randint(1, 4)))
    text = gen.expr(3)
    return "true" if CRASHERS.search(text) else text


def scenario(seed: int, exprs: int = EXPRS_PER_SCENARIO) -> list[dict]:
    """The cases of one scenario (deterministic in ``seed``)."""
    rng = random.Random(seed)
    my_names, target_names = ad_names(rng), ad_names(rng)
    gen = FuzzGenerator(rng.getrandbits(64), my_names + target_names + ["Requirements"])
    my = ad_text(gen, my_names, requirements(gen))
    target = ad_text(gen, target_names, requirements(gen))
    cases = [{"kind": "match", "my": my, "target": target}]
    cases += [{"kind": "write", "my": ad} for ad in (my, target)]
    for _ in range(exprs):
        text = gen.long_chain() if rng.random() < 0.01 else gen.expr(rng.randint(1, 4))
        cases.append({"kind": "eval", "my": my, "target": target, "text": text})
    return cases


def fixed_ad_cases(seed: int, count: int) -> list[dict]:
    """``count`` eval cases of the fuzz generator over gen_exprs' two real-looking ads."""
    gen = FuzzGenerator(seed)
    return [
        {
            "kind": "eval",
            "my": gx.JOB_AD,
            "target": gx.SLOT_AD,
            "text": gen.expr(gen.rng.randint(1, 4)),
        }
        for _ in range(count)
    ]
