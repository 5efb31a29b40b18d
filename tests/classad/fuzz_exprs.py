"""A second, harsher expression generator for the differential campaign (issue 19).

``gen_exprs.Generator`` parenthesises every compound operand and keeps to the two
fixed ads; this one, ``FuzzGenerator``, writes what an admin writes:

* operands *without* parentheses (``a + b * c - d``, ``x || y && z``, ``c ? a : b ?: d``,
  ``- -x``, postfix ``.x``/``[0]`` on operands), so the two parsers must agree on
  precedence and associativity, and both printers on where parentheses go;
* every built-in with arguments of the right kind and, one call in five, of any kind,
  and one call in twelve with one argument too few or too many;
* strings holding bytes that are not UTF-8 (octal escapes such as ``"\\377"``, UTF-8
  sequences cut short) next to valid multi-byte text;
* integer literals of 19-20 digits and of more than 4,300 digits (Python's default
  limit for ``int(str)``), reals beyond the double range;
* references to the attribute names of the scenario's own random ads (``names``),
  scoped or not, as well as names neither ad defines.

Long chains (200-term sums, 199 nested lists or calls, 250 postfixes) are built by
``long_chain``. The time built-ins whose answers HTCondor computes from an
uninitialised ``struct tm`` (splitTime/formatTime of years the C library cannot
represent) keep their safe argument pools, as in ``gen_exprs``. The same seed always
gives the same text.
"""

from __future__ import annotations

import random

from . import gen_exprs as gx

# Left-associative binary operators by precedence group, loosest first.
BINARY_GROUPS = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!=", "=?=", "=!=", "is", "isnt"),
    ("<", "<=", ">", ">="),
    ("<<", ">>", ">>>"),
    ("+", "-"),
    ("*", "/", "%"),
)
ALL_BINARY = tuple(op for group in BINARY_GROUPS for op in group)
BYTE_STRINGS = (
    '"\\377"',
    '"a\\377b"',
    '"\\303"',  # the lead byte of a two-byte character, cut
    '"\\303\\251"',  # "é" spelled in octal: valid UTF-8
    '"é"',
    '"\\342\\202"',  # a three-byte sequence cut after two bytes
    '"x\\200y"',
    '"日本"',
    '"\\360\\237\\230"',
    '"É\\377é"',
    '"\\101\\102"',
)
BIG_INTS = (
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999",
    "-9223372036854775808",
)
BIG_REALS = (
    "1e400",
    "-1e400",
    "1e-400",
    "1.7976931348623157e308",
    "4.9e-324",
    "123456789.123456789",
)
# Called with no argument these read the clock, which the two libraries read apart.
CLOCK_WITHOUT_ARGUMENTS = ("abstime(", "reltime(", "formattime(", "splittime(")
ONE_ARG = ("int", "real", "string", "toUpper", "size", "isUndefined", "floor", "strcat", "bool")


def huge_int(rng: random.Random) -> str:
    """A decimal literal of 4,301 to 5,000 digits."""
    digits = rng.randint(4301, 5000)
    return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(digits - 1))


class FuzzGenerator(gx.Generator):
    """Unparenthesised expressions over a scenario's attribute names."""

    def __init__(self, seed: int, names: list[str] | None = None) -> None:
        super().__init__(seed)
        self.names = names or list(gx.NAMES)

    # -- operators without parentheses ------------------------------------------
    def expr(self, depth: int) -> str:
        r = self.rng.random()
        if depth <= 0 or r < 0.2:
            return self.primary(depth)
        if r < 0.55:
            return self.chain(depth)
        if r < 0.65:
            return self.ternary(depth)
        if r < 0.72:
            right = self.expr(depth - 1)
            if right[0] in "!~+-" and self.rng.random() < 0.8:
                right = f"({right})"  # both refuse most prefix operators after ?:
            return f"{self.primary(depth)} ?: {right}"
        return self.primary(depth)

    def chain(self, depth: int) -> str:
        """2-5 operands joined by operators of mixed precedence, no parentheses."""
        count = self.rng.randint(2, 5)
        parts = [self.primary(depth - 1)]
        for _ in range(count - 1):
            op = self.rng.choice(ALL_BINARY)
            parts += [op, self.primary(depth - 1)]
        return " ".join(parts)

    def ternary(self, depth: int) -> str:
        # The condition and the branches may be chains themselves: `a || b ? c : d + e`.
        cond = self.chain(depth - 1) if self.rng.random() < 0.5 else self.primary(depth - 1)
        return f"{cond} ? {self.expr(depth - 1)} : {self.expr(depth - 1)}"

    def primary(self, depth: int) -> str:
        """An operand that needs no parentheses: a leaf, call, list, record, a unary
        operator on an operand, a postfix on an operand, or a parenthesised expr."""
        r = self.rng.random()
        if depth <= 0 or r < 0.35:
            return self.leaf()
        if r < 0.45:
            return f"{self.rng.choice(gx.UNARY)}{self.primary(depth - 1)}"
        if r < 0.65:
            return self.call(depth)
        if r < 0.73:
            return f"({self.expr(depth - 1)})"
        if r < 0.8:
            return self.list_(depth)
        if r < 0.85:
            return self.record(depth)
        if r < 0.93:
            return f"{self.primary(depth - 1)}[{self.index(depth)}]"
        return f"{self.select_base(depth)}.{self.rng.choice(self.names)}"

    # (``select_base`` is gen_exprs': no selection on a list a function built, where
    # classad2 segfaults)

    # -- leaves ---------------------------------------------------------------
    def leaf(self) -> str:
        r = self.rng.random()
        if r < 0.04:
            return self.rng.choice(BYTE_STRINGS)
        if r < 0.06:
            return self.rng.choice(BIG_INTS + BIG_REALS)
        if r < 0.063:
            return huge_int(self.rng)
        return super().leaf()

    def attr(self) -> str:
        name = self.rng.choice(self.names) if self.rng.random() < 0.8 else self.rng.choice(gx.NAMES)
        scope = self.rng.choices(["", "MY.", "TARGET.", "target.", "."], [50, 15, 25, 4, 3])[0]
        return scope + name

    # -- calls with wrong types and counts ---------------------------------------
    def argument(self, kind: str, depth: int, name: str) -> str:
        if kind not in gx.TIME_KINDS and kind not in "mk" and self.rng.random() < 0.2:
            return self.expr(max(depth - 1, 0))  # any type at all
        if kind == "s" and self.rng.random() < 0.15:
            return self.rng.choice(BYTE_STRINGS)
        return super().argument(kind, depth, name)

    def call(self, depth: int) -> str:
        text = super().call(depth)
        if text.lower().startswith("evalineachcontext("):
            # Subscripting its list crashes classad2 (docs/classad.md), and the campaign
            # compares lists element by element: count the matches instead.
            text = "countMatches(" + text[len("evalineachcontext(") :]
        clock = text.lower().startswith(CLOCK_WITHOUT_ARGUMENTS)
        if self.rng.random() < 1 / 12 and not text.endswith("()") and not clock:
            # drop the last argument: one too few (or none at all)
            head, _, args = text[:-1].partition("(")
            kept = _split_args(args)[:-1]
            text = f"{head}({', '.join(kept)})"
        return text

    # -- long chains ------------------------------------------------------------
    def long_chain(self) -> str:
        """One of the long forms of issue 19: a 200-term chain of one operator, a
        199-clause ``||``, 120 to 199 nested lists or one-argument calls, 250 ``.x`` /
        ``[0]`` postfixes."""
        kind = self.rng.randrange(5)
        if kind == 0:
            op = self.rng.choice(("+", "*", "-", "&&", "==", "<"))
            return f" {op} ".join(self.leaf() for _ in range(200))
        if kind == 1:
            return " || ".join(self.clause() for _ in range(199))
        # HTCondor's parser takes 165 levels of nesting and refuses 166 (parser.py)
        deep = self.rng.choice((120, 165, 166, 199))
        if kind == 2:
            return "{" * deep + self.leaf() + "}" * deep
        if kind == 3:
            calls = [self.rng.choice(ONE_ARG) for _ in range(deep)]
            return "".join(f"{c}(" for c in calls) + self.leaf() + ")" * deep
        base = self.attr() if self.rng.random() < 0.5 else self.record(1)
        return base + "".join(self.rng.choice((".x", "[0]", ".a", '["x"]')) for _ in range(250))

    def clause(self) -> str:
        """A Requirements clause: a comparison of a reference with a literal."""
        op = self.rng.choice(("==", "<", ">=", "=?=", "!="))
        return f"{self.attr()} {op} {super().leaf()}"


def _split_args(text: str) -> list[str]:
    """The top-level comma-separated pieces of an argument list's text."""
    pieces, depth, start, quoted = [], 0, 0, False
    i = 0
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(text[start:i].strip())
            start = i + 1
        i += 1
    last = text[start:].strip()
    return [*pieces, last] if last or pieces else []
