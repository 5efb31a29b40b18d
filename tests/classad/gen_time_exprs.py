"""A seeded generator of expressions over the time and environment built-ins, for the
differential tests (``test_time_builtins.py``; ``gen_exprs.py`` draws its arguments
from here too).

Instants sit around the epoch, the 32-bit limits, and the 2024 daylight-saving
changes of the zones the tests pin (US, Europe, Lord Howe's half hour); reals,
negative and huge values, strings, booleans, lists, records, undefined and error come
as wrong types. Clock functions (``time()``, ``currentTime()``, ``formatTime()``...)
are left out: the two libraries read different clocks (``test_time_builtins.py``
checks them apart). ``splitTime``/``formatTime`` of instants whose year the C library
cannot represent are left out as well: HTCondor reads an uninitialised ``struct tm``
there.
"""

from __future__ import annotations

import random

INSTANTS = (
    "0",
    "1",
    "-1",
    "59",
    "86399",
    "86400",
    "1700000000",
    "1710053999",  # 2024-03-10 06:59:59 UTC, just before US DST starts
    "1710054000",
    "1710057600",
    "1711846799",  # 2024-03-31 00:59:59 UTC, just before EU DST starts
    "1711846800",
    "1730613599",  # 2024-11-03 05:59:59 UTC, US DST ends at 06:00 UTC
    "1730613600",
    "1730617200",
    "1712415600",  # 2024-04-06 15:00 UTC, Lord Howe leaves DST (half hour)
    "1727969400",
    "2147483647",
    "(-2147483647 - 1)",
    "2147483648",
    "4294967297",
    "-86400000",
    "951782400",  # 2000-02-29
    "1709164800",  # 2024-02-29
    "253402300799",  # 9999-12-31T23:59:59
    "-62135596800",  # year 1
    "1e9",
    "1.7e9",
    "1700000000.75",
    "-0.5",
    "2.9",
    "1e12",
    "-1e12",
    "9223372036854775807",
)
# Instants safe for splitTime/formatTime of a plain number (the C library can split them).
SPLITTABLE = tuple(i for i in INSTANTS if i != "9223372036854775807")
DURATIONS = (
    "0",
    "1",
    "59",
    "60",
    "61",
    "90",
    "3599",
    "3600",
    "3661",
    "86399",
    "86400",
    "90061",
    "-1",
    "-90",
    "-3600",
    "-86400",
    "-90061",
    "0.5",
    "-0.5",
    "90.25",
    "-90.25",
    "86400.75",
    "59.999",
    "1e-7",
    "2147483647",
    "2147483648",
    "4294967297",
    "1e10",
    "-1e10",
    "1e300",
    "-0.0",
)
ABS_TEXTS = (
    '"2024-01-01T00:00:00Z"',
    '"2024-07-01T12:00:00"',
    '"2024-03-10T02:30:00"',
    '"2024-11-03T01:30:00"',
    '"2024-03-31T02:30:00"',
    '"2024-10-27T02:30:00"',
    '"2024-07-01T12:00:00+0200"',
    '"2024-07-01T12:00:00-05:30"',
    '"2024-07-01T12:00:00+05:45"',
    '"2024-07-01"',
    '"2024"',
    '"20240701120000"',
    '"  2024-07-01 12:00:00   "',
    '"1970-01-01T00:00:00Z"',
    '"2038-01-19T03:14:08Z"',
    '"2024-02-30T25:61:61"',
    '"2024-01-01T00:00:00z"',
    '"2024-01-01T00:00:00-00:00"',
    '"2024-01-01T00:00:00+99:99"',
)
BAD_ABS_TEXTS = ('"x"', '"24"', '"2024-01-01T00:00:00:00:00"', '""')
REL_TEXTS = (
    '"1d"',
    '"01:30"',
    '"1+00:02:00"',
    '"-1+00:02:00"',
    '"90"',
    '"90s"',
    '"1h 30m"',
    '"2d3h4m5s"',
    '"1.5"',
    '"-01:30"',
    '" 5 "',
    '""',
    '"00"',
    '".5"',
    '"99999999999d"',
)
BAD_REL_TEXTS = ('"x"', '"1y"', '"1 d x"', '"--5"', '"1:2:3:4"', '"5."')
OFFSETS = ("0", "3600", "-3600", "19800", "-18000", "1.5", "86399", "90000", "-59", "4294967297")
WRONG = (
    '"x"',
    "true",
    "undefined",
    "error",
    "{ 1 }",
    "[ a = 1 ]",
    '"2024-01-01T00:00:00Z"',
    "Memory",
)
FORMATS = (
    '"%c"',
    '"%Y-%m-%d %H:%M:%S"',
    '"%a %A %b %B %d %e %j %U %W %V %G %g %u %w"',
    '"%z %Z %s"',
    '"%D %F %T %R %r %p %I %l %k %C %y %h"',
    '"%x %X %n%t%%"',
    '"%-d %_H %010Y %^a %#Z %+ %P"',
    '"%Ec %Oy %Ox %EY"',
    '""',
    '"plain"',
    '"%"',
    '"%Q"',
    '"%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y"',
)
TIME_RECORDS = (
    "[ Year = 2020; Month = 2; Day = 30 ]",
    "[ Year = 2024; Month = 7; Day = 4; Hours = 13; Minutes = 5; Seconds = 9 ]",
    "[ ]",
    "[ Year = 2020.7; Month = true; Day = 3 ]",
    "[ Year = 2020; Month = 13; Day = -3; Hours = 25; Minutes = 61; Seconds = 99 ]",
    "[ Year = -5; Month = 3; Day = 1 ]",
    "[ Year = 2020; Month = 0 ]",
    "[ Year = 4294967297 ]",
    "[ Year = 1999; Month = x; x = 12; Day = 31 ]",
    '[ Type = "RelativeTime"; Days = 1 ]',
)
ENV_V1 = (
    '"A=1;B=2"',
    '"B=2;A=1;A=3"',
    '"|A=1|B=x;y"',
    '",A=1,B=2"',
    '"A=1\\nB=2"',
    '" A=1 ; B = 2 "',
    '"A=1;;B=2"',
    '"=1"',
    '"A"',
    '"A=$$(X)"',
    '"$$(X)"',
    '""',
    '";"',
    '"A=1;=2"',
    "\"x='q' y\"",
    "\"A=a b;C=''\"",
    '"#A=1#B=2"',
    '"a=1;b=2;Z=0"',
)
ENV_V2 = (
    '"A=1 B=2"',
    '"B=2 A=1"',
    "\"A='x y' B=''\"",
    "\"A='it''s'\"",
    '"A=1"',
    '"A"',
    '"=1"',
    '""',
    '"  "',
    '"A=\'unbalanced"',
    '"$$(X)"',
    '"A=1 A=2"',
    '"A=$$(Y) C=3"',
    "\"''\"",
    '"A=1\\tB=2"',
)
ARG_STRINGS = (
    "\"a 'b c'\"",
    '"a b  c"',
    '""',
    '"   "',
    "\"'it''s' x\"",
    '"\'unbalanced"',
    "\"''\"",
    "\"a''b\"",
    '"a\\tb\\nc"',
    "\"' lead' 'trail '\"",
    '"x=1 y=2"',
)
ARG_LISTS = (
    '{ "a", "b c" }',
    "{ }",
    '{ "" }',
    '{ "a", "", "b" }',
    '{ "it\'s" }',
    '{ "a b", "c\'d" }',
    '{ "tab\\there" }',
    '{ 1, "a" }',
    '{ "a", undefined }',
    '{ " x ", "y" }',
    '{ "", "a" }',
)
VERSIONS = ("1", "2", "3", "0", "4294967297", "true", '"2"', "undefined", "1.0")
USERS = ('"nosuchuser_condorlite"', "undefined", "1", '""', "{ }")
DEFAULTS = ('"/home/dflt"', '""', "undefined", "7")


class TimeGenerator:
    """Random expression text over the time and environment built-ins."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pick(self, *pools: tuple[str, ...]) -> str:
        return self.rng.choice(self.rng.choice(pools))

    def abstime(self, depth: int = 1) -> str:
        r = self.rng.random()
        if r < 0.3:
            return f"absTime({self.pick(ABS_TEXTS)})"
        if r < 0.55:
            return f"absTime({self.pick(INSTANTS)})"
        if r < 0.75:
            return f"absTime({self.pick(INSTANTS)}, {self.pick(OFFSETS)})"
        if r < 0.85 and depth > 0:
            return f"(({self.abstime(depth - 1)}) + ({self.reltime(depth - 1)}))"
        if r < 0.92 and depth > 0:
            return f"(({self.abstime(depth - 1)}) - ({self.reltime(depth - 1)}))"
        return f"absTime({self.reltime(0)})"

    def reltime(self, depth: int = 1) -> str:
        r = self.rng.random()
        if r < 0.35:
            return f"relTime({self.pick(DURATIONS)})"
        if r < 0.6:
            return f"relTime({self.pick(REL_TEXTS)})"
        if r < 0.7 and depth > 0:
            return f"(({self.abstime(depth - 1)}) - ({self.abstime(depth - 1)}))"
        if r < 0.8 and depth > 0:
            op = self.rng.choice(("+", "-"))
            return f"(({self.reltime(depth - 1)}) {op} ({self.reltime(depth - 1)}))"
        if r < 0.9 and depth > 0:
            op = self.rng.choice(("*", "/"))
            return f"(({self.reltime(depth - 1)}) {op} ({self.pick(DURATIONS)}))"
        return f"relTime({self.abstime(0)})"

    def time_arg(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            return self.abstime()
        if r < 0.5:
            return self.reltime()
        if r < 0.75:
            return self.pick(SPLITTABLE)
        if r < 0.85:
            return self.rng.choice(TIME_RECORDS)
        return self.rng.choice(WRONG)

    def value(self) -> str:
        r = self.rng.random()
        if r < 0.4:
            return self.abstime()
        if r < 0.8:
            return self.reltime()
        return self.pick(INSTANTS, WRONG, DURATIONS)

    def expr(self) -> str:
        r = self.rng.random()
        if r < 0.06:
            return f"absTime({self.pick(BAD_ABS_TEXTS)})"
        if r < 0.1:
            return f"relTime({self.pick(BAD_REL_TEXTS)})"
        if r < 0.18:
            return self.abstime(2)
        if r < 0.26:
            return self.reltime(2)
        if r < 0.36:
            return self.operator()
        if r < 0.48:
            return self.call()
        if r < 0.58:
            return f"formatTime({self.time_arg()}, {self.pick(FORMATS, WRONG)})"
        if r < 0.63:
            return f"formatTime({self.time_arg()})"
        if r < 0.7:
            return f"splitTime({self.time_arg()})"
        if r < 0.75:
            name = self.rng.choice(("absTime", "relTime"))
            count = self.rng.randint(1, 3)
            args = ", ".join(self.pick(INSTANTS, WRONG, OFFSETS) for _ in range(count))
            return f"{name}({args})"
        return self.env_call()

    def operator(self) -> str:
        op = self.rng.choice(
            (
                "+",
                "-",
                "*",
                "/",
                "%",
                "<",
                "<=",
                ">",
                ">=",
                "==",
                "!=",
                "=?=",
                "=!=",
                "is",
                "isnt",
                "&&",
                "||",
                "&",
                "<<",
            )
        )
        r = self.rng.random()
        if r < 0.2:
            return f"{self.rng.choice(('-', '+', '!', '~'))}({self.value()})"
        if r < 0.3:
            return f"(({self.value()}) ? 1 : 2)"
        if r < 0.35:
            return f"(({self.value()}) ?: 2)"
        return f"({self.value()}) {op} ({self.value()})"

    def call(self) -> str:
        name = self.rng.choice(
            (
                "getYear",
                "getMonth",
                "getDayOfMonth",
                "getDayOfWeek",
                "getDayOfYear",
                "getHours",
                "getMinutes",
                "getSeconds",
                "getDays",
                "interval",
                "isAbstime",
                "isReltime",
                "int",
                "real",
                "string",
                "bool",
                "floor",
                "round",
                "ceiling",
                "strcat",
                "toUpper",
                "size",
                "isReal",
                "isInteger",
                "member",
                "pow",
                "quantize",
                "GETYEAR",
                "gethours",
            )
        )
        if name == "member":
            return f"member({self.value()}, {{ {self.value()}, {self.value()} }})"
        if name in ("pow", "quantize"):
            return f"{name}({self.value()}, 2)"
        if self.rng.random() < 0.05:
            return f"{name}({self.value()}, 1)"
        if self.rng.random() < 0.03:
            return f"{name}()"
        return f"{name}({self.value()})"

    def env_call(self) -> str:
        r = self.rng.random()
        if r < 0.2:
            return f"envV1ToV2({self.pick(ENV_V1, WRONG[:5])})"
        if r < 0.4:
            count = self.rng.randint(0, 3)
            pools = (ENV_V2, ENV_V2, ("undefined", "1", "{ }"))
            args = ", ".join(self.pick(*pools) for _ in range(count))
            return f"mergeEnvironment({args})"
        if r < 0.6:
            extra = f", {self.pick(VERSIONS)}" if self.rng.random() < 0.4 else ""
            return f"argsToList({self.pick(ARG_STRINGS, WRONG[:4])}{extra})"
        if r < 0.8:
            extra = f", {self.pick(VERSIONS)}" if self.rng.random() < 0.4 else ""
            return f"listToArgs({self.pick(ARG_LISTS, WRONG[:4])}{extra})"
        if r < 0.85:
            return self.rng.choice(
                (
                    "envV1ToV2()",
                    'envV1ToV2("A=1", 2)',
                    "argsToList()",
                    "listToArgs({}, 1, 2)",
                    "userHome()",
                    "userHome(1, 2, 3)",
                )
            )
        if self.rng.random() < 0.5:
            return f"userHome({self.pick(USERS)})"
        return f"userHome({self.pick(USERS)}, {self.pick(DEFAULTS)})"


def generate_time(seed: int, count: int) -> list[str]:
    """``count`` time and environment expressions from ``seed`` (deterministic)."""
    gen = TimeGenerator(seed)
    return [gen.expr() for _ in range(count)]
