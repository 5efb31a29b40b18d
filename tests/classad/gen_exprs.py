"""A seeded random generator of ClassAd expression text, for differential testing.

``generate(seed, count)`` yields expression strings mixing every operator, the built-in
functions, literals of every type (undefined and error included), lists, nested records,
selection and subscripts, and attribute references (unscoped, ``MY.``, ``TARGET.``,
``PARENT.``, absolute) into ``JOB_AD`` and ``SLOT_AD`` below. Every compound operand is
parenthesised, so the corpus tests evaluation rather than precedence (the parser has its
own tests). The same seed always gives the same corpus.
"""

from __future__ import annotations

import random

from . import gen_time_exprs as tx

JOB_AD = """[
  RequestMemory = 2048; RequestCpus = 1; RequestDisk = RequestMemory * 2;
  Owner = "alice"; Cmd = "/bin/sleep"; ImageSize = 1.5e3; Ratio = 0.1;
  Rank = TARGET.Memory / 1024.0;
  Requirements = (TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64");
  WantGpu = false; Tags = { "a", "b", 3 }; Big = 9223372036854775807; Neg = -7;
  Nested = [ a = 1; b = a + RequestCpus; c = TARGET.Cpus; d = Owner; e = MY.a; f = PARENT.Neg ];
  Undef = undefined; Err = error; LoopA = LoopB; LoopB = LoopA + 1;
  SelfRef = isUndefined(SelfRef); Name = "job.1@submit"; Shared = "from-job";
  Arch = "job-arch"; Version = "1.10.2"; Pattern = "^sl.t"; CsvList = "a, b,c";
  Numbers = { 3, 1.5, true, undefined }; Mixed = { 1, "x", undefined, error };
  Ref = Memory; Empty = ""; Upper = "ALICE"; Zero = 0; ZeroReal = 0.0;
  RequireGpus = Capability >= 7.0; RequestGpus = 1
]"""

SLOT_AD = """[
  Memory = 4096; Cpus = 8; Disk = 1000000; Arch = "X86_64"; OpSys = "LINUX";
  Name = "slot1@host"; LoadAvg = 0.25; Start = true; KFlops = 1234567;
  Requirements = START && (TARGET.RequestMemory <= Memory);
  HasGpu = FALSE; Shared = "from-slot"; Tags = { "x", { 1, 2 }, [ q = 1 ] };
  Users = "alice, bob,carol"; Rank = Memory - TARGET.RequestMemory;
  Version = "1.9"; Ratio = 2.5; Ref = RequestMemory; Back = TARGET.Owner;
  Ad = [ Memory = 1; Inner = Memory + 1; Up = Cpus ]; Neg = -2.5; Int32 = 4294967297;
  AvailableGpus = { GPUs_0, GPUs_1 }; GPUs_0 = [ Capability = 8.0; DeviceName = "A100" ];
  GPUs_1 = [ Capability = 6.1; DeviceName = "T4" ]
]"""

NAMES = [
    "RequestMemory",
    "RequestCpus",
    "RequestDisk",
    "Owner",
    "Cmd",
    "ImageSize",
    "Ratio",
    "Rank",
    "Requirements",
    "WantGpu",
    "Tags",
    "Big",
    "Neg",
    "Nested",
    "Undef",
    "Err",
    "LoopA",
    "LoopB",
    "SelfRef",
    "Name",
    "Shared",
    "Arch",
    "Version",
    "Pattern",
    "CsvList",
    "Numbers",
    "Mixed",
    "Ref",
    "Empty",
    "Upper",
    "Zero",
    "ZeroReal",
    "Memory",
    "Cpus",
    "Disk",
    "OpSys",
    "LoadAvg",
    "Start",
    "KFlops",
    "HasGpu",
    "Users",
    "Back",
    "Ad",
    "Int32",
    "Missing",
    "nosuch",
    "requestmemory",
    "MEMORY",
]

INTS = (
    "0",
    "1",
    "2",
    "3",
    "7",
    "10",
    "64",
    "63",
    "-1",
    "1024",
    "9223372036854775807",
    "(-9223372036854775807 - 1)",
    "4294967296",
    "100000",
)
REALS = ("0.0", "1.5", "2.5", "-0.5", "0.1", "1e308", "1e-3", "3.0", "1e10", "-0.0", "0.3")
STRINGS = (
    '"abc"',
    '"ABC"',
    '""',
    '"a,b"',
    '"10"',
    '"x y"',
    '"1.10"',
    '"1.9"',
    '"alice"',
    '"slot1@host"',
    '"a.*"',
    '"^A"',
    '"3.5"',
    '" 12"',
    '"true"',
    '"1e3x"',
    '"b"',
    '"\\\\1-\\\\0"',
    '"[[:digit:]]+"',
    '"x\\ty"',
)
SPECIALS = ("true", "false", "undefined", "error", "TRUE", "Undefined")

BINARY = (
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
    "|",
    "^",
    "<<",
    ">>",
    ">>>",
)
UNARY = ("-", "+", "!", "~")

# name -> argument kinds, one letter per argument: s string, P regex pattern, n number,
# l list,
# a anything, x quantize step, o regexp options, p substitution options, c comparison
# operator, e eval text, r unparse argument, m countMatches expression, k list of
# records, d string-list delimiters; for the time and environment functions
# (gen_time_exprs.py): t a time or anything, T a time splitTime/formatTime can split
# (no random expression: HTCondor reads garbage for years the C library cannot
# represent), O a zone offset, A/R absTime/relTime text, f a strftime format, v/w a
# V1/V2 environment, g an argument string, q a list of arguments, V a syntax version,
# u a user name (none that exists: userHome is a deliberate difference), D a default
# home. A trailing digit tells variants apart.
FUNCTIONS = {
    "ifThenElse": "aaa",
    "isUndefined": "a",
    "isError": "a",
    "isString": "a",
    "isInteger": "a",
    "isReal": "a",
    "isBoolean": "a",
    "isList": "a",
    "isClassAd": "a",
    "int": "a",
    "real": "a",
    "string": "a",
    "bool": "a",
    "floor": "n",
    "ceiling": "n",
    "round": "n",
    "pow": "nn",
    "quantize": "nx",
    "min": "l",
    "max": "l",
    "sum": "l",
    "avg": "l",
    "strcat": "sas",
    "substr": "sn",
    "substr3": "snn",
    "size": "x",
    "toLower": "s",
    "toUpper": "s",
    "strcmp": "ss",
    "stricmp": "ss",
    "join": "sl",
    "join1": "l",
    "join3": "sss",
    "split": "s",
    "split2": "sd",
    "splitUserName": "s",
    "splitSlotName": "s",
    "regexp": "Ps",
    "regexp3": "Pso",
    "regexps": "Pss",
    "regexps4": "Pssp",
    "replace": "Pss",
    "replace4": "Pssp",
    "replaceall": "Pss",
    "replaceall4": "Pssp",
    "regexpMember": "Pl",
    "member": "al",
    "identicalMember": "al",
    "anyCompare": "cla",
    "allCompare": "cla",
    "stringListSize": "s",
    "stringListSize2": "sd",
    "stringListSum": "s",
    "stringListAvg": "s",
    "stringListMin": "s",
    "stringListMax": "s",
    "stringListMember": "ss",
    "stringListMember3": "ssd",
    "stringListIMember": "ss",
    "stringListSubsetMatch": "ss",
    "stringListISubsetMatch": "ss",
    "stringListsIntersect": "ss",
    "stringListsIntersect3": "ssd",
    "stringList_regexpMember": "Ps",
    "stringList_regexpMember4": "Psdo",
    "versioncmp": "ss",
    "versionGT": "ss",
    "versionGE": "ss",
    "versionLT": "ss",
    "versionLE": "ss",
    "versionEQ": "ss",
    "version_in_range": "sss",
    "interval": "n",
    "eval": "e",
    "debug": "a",
    "unparse": "r",
    "countMatches": "mk",
    "evalInEachContext": "mk",
    "nosuchfunction": "a",
    "stringListRegexpMember": "ss",
    "Int": "a",
    "STRCAT": "ss",
    # time and environment built-ins (argument pools in gen_time_exprs.py)
    "absTime": "t",
    "absTime2": "tO",
    "absTime3": "A",
    "relTime": "t",
    "relTime3": "R",
    "formatTime": "T",
    "formatTime2": "Tf",
    "splitTime": "T",
    "getYear": "t",
    "getMonth": "t",
    "getDayOfMonth": "t",
    "getDayOfWeek": "t",
    "getDayOfYear": "t",
    "getHours": "t",
    "getMinutes": "t",
    "getSeconds": "t",
    "getDays": "t",
    "isAbstime": "a",
    "isReltime": "a",
    "envV1ToV2": "v",
    "mergeEnvironment": "ww",
    "mergeEnvironment1": "w",
    "argsToList": "g",
    "argsToList2": "gV",
    "listToArgs": "q",
    "listToArgs2": "qV",
    "userHome": "u",
    "userHome2": "uD",
}
# Every function is in the random corpus; the list stays for callers that want to
# leave some out.
NOT_IN_CORPUS: frozenset[str] = frozenset()
CORPUS_FUNCTIONS = [name for name in FUNCTIONS if name not in NOT_IN_CORPUS]
NUMBER_STRINGS = (
    '"1, 2, 3"',
    '"1,2.5"',
    '"3,1,2"',
    '""',
    '"1,x"',
    '"-4, 10"',
    '"1e3, inf"',
    '"9223372036854775807"',
    '" a\\tb ,c"',
)
DELIMS = ('","', '";"', '", "', '""', '" "', '"a"', "undefined", '",;"')
OPTIONS = ('"i"', '""', '"m"', '"s"', '"x"', '"I"', '"is"', "undefined", '"M"')
SUBST_OPTIONS = ('"g"', '"f"', '"fg"', '"i"', '"G"', '"gi"', '""')
COMPARE_OPS = (
    '"<"',
    '"<="',
    '"=="',
    '"!="',
    '">"',
    '">="',
    '"is"',
    '"isnt"',
    '"=?="',
    '"xx"',
    '"IS"',
    "undefined",
)
EVAL_TEXTS = ('"1 + 2"', '"Memory * 2"', '"RequestMemory"', '"bad syntax ("', '"TARGET.Cpus"')
UNPARSE_ARGS = (
    "Memory",
    "RequestDisk",
    "Missing",
    "Rank",
    "1 + 2",
    "MY.RequestDisk",
    "Nested",
    "Tags",
    "TARGET.Memory",
    "Requirements",
    "Numbers",
)
# Bare references here name attributes both ads define: HTCondor's lookup of the
# first argument leaves its evaluation state in the ad where it found the name (or
# nowhere) for the rest of the expression, a documented difference, harmless when that
# ad is MY itself.
CONTEXT_EXPRS = (
    "Cpus > 4",
    "(a)",
    "x == 1",
    "Rank",
    "RequestCpus > 0",
    "MY.a == 1",
    "q == 1",
    "Arch",
    "b > 1",
    "true",
    "Ratio",
    "TARGET.Cpus > 4",
    "a + RequestCpus",
    "Inner + 0",
    "MY.Shared",
)
RECORD_LISTS = (
    "{ [Cpus = 2], [Cpus = 8] }",
    "{ [a = 1], [a = true], 3, undefined }",
    "{ Nested, Ad }",
    "TARGET.Tags",
    "Tags",
    "undefined",
    "{ }",
    "{ [x = 1], [x = 0.0], [x = error] }",
    "{ [a = 0; b = 2], [q = 1; a = 5] }",
    "error",
    "{ [Memory = 1], [zz = Owner] }",
)
REGEX_PATTERNS = (
    '"\\\\d+"',
    '"\\\\Qa.b\\\\E"',
    '"(?<n>a)\\\\k<n>"',
    '"a{,2}"',
    '"[[:alpha:]]+"',
    '"\\\\w+$"',
    '"^(a|b)*"',
    '"(?i)A"',
    '"[^[:space:]]+"',
    '"(a)|(b)"',
    '"x*"',
    '"l(i)"',
    '"\\\\bb"',
)
SUBSTITUTION_TEMPLATES = ('"\\\\1-\\\\0"', '"<\\\\0>"', '"x"', '""', '"\\\\2"', '"\\\\"')


TIME_KINDS = frozenset("tTOARfvwgqVuD")


class _TimeArguments:
    """Arguments of the time and environment functions, drawn from gen_time_exprs."""

    rng: random.Random

    def expr(self, depth: int) -> str:  # pragma: no cover (Generator's)
        raise NotImplementedError

    def time_argument(self, kind: str) -> str:
        rng = self.rng
        if kind == "T":
            gen = tx.TimeGenerator(rng.getrandbits(32))
            return gen.time_arg()
        pools = {
            "O": tx.OFFSETS,
            "A": tx.ABS_TEXTS,
            "R": tx.REL_TEXTS,
            "f": tx.FORMATS,
            "v": tx.ENV_V1,
            "w": tx.ENV_V2,
            "g": tx.ARG_STRINGS,
            "q": tx.ARG_LISTS,
            "V": tx.VERSIONS,
            "u": tx.USERS,
            "D": tx.DEFAULTS,
        }
        if kind == "t":
            text = (
                self.expr(2)
                if rng.random() < 0.3
                else tx.TimeGenerator(rng.getrandbits(32)).time_arg()
            )
            # A written string as the one argument of absTime/relTime is read when the
            # call is parsed (text naming no time is a syntax error): keep it a value.
            return f"({text})" if text.startswith('"') and text.endswith('"') else text
        if rng.random() < 0.1 and kind in "vwgqD":
            return self.expr(1)
        return rng.choice(pools[kind])


class Generator(_TimeArguments):
    """Random expression text; one instance per seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def expr(self, depth: int) -> str:
        r = self.rng.random()
        if depth <= 0 or r < 0.25:
            return self.leaf()
        if r < 0.50:
            return self.binary(depth)
        if r < 0.58:
            return f"{self.rng.choice(UNARY)}({self.expr(depth - 1)})"
        if r < 0.78:
            return self.call(depth)
        if r < 0.83:
            return (
                f"(({self.expr(depth - 1)}) ? ({self.expr(depth - 1)}) : ({self.expr(depth - 1)}))"
            )
        if r < 0.86:
            return f"(({self.expr(depth - 1)}) ?: ({self.expr(depth - 1)}))"
        if r < 0.91:
            return self.list_(depth)
        if r < 0.94:
            return self.record(depth)
        if r < 0.97:
            return f"({self.expr(depth - 1)})[{self.index(depth)}]"
        return f"({self.select_base(depth)}).{self.rng.choice(NAMES)}"

    def select_base(self, depth: int) -> str:
        # classad2 crashes (segfault) selecting from a list that a function built, e.g.
        # splitSlotName("").Name, so selections apply to references and literals only.
        r = self.rng.random()
        if r < 0.5:
            return self.attr()
        if r < 0.8:
            return self.record(depth)
        return "{ " + ", ".join(self.record(depth) for _ in range(2)) + " }"

    def leaf(self) -> str:
        r = self.rng.random()
        if r < 0.40:
            return self.attr()
        if r < 0.55:
            return self.rng.choice(INTS)
        if r < 0.67:
            return self.rng.choice(REALS)
        if r < 0.87:
            return self.rng.choice(STRINGS)
        return self.rng.choice(SPECIALS)

    def attr(self) -> str:
        name = self.rng.choice(NAMES)
        scope = self.rng.choices(["", "MY.", "TARGET.", "target.", "."], [50, 15, 25, 4, 3])[0]
        return scope + name

    def index(self, depth: int) -> str:
        if self.rng.random() < 0.6:
            return self.rng.choice(("0", "1", "2", "-1", "3", '"a"', '"Memory"', '"b"'))
        return self.expr(depth - 1)

    def binary(self, depth: int) -> str:
        op = self.rng.choice(BINARY)
        return f"({self.expr(depth - 1)}) {op} ({self.expr(depth - 1)})"

    def list_(self, depth: int) -> str:
        count = self.rng.randint(0, 3)
        items = [self.expr(depth - 1) for _ in range(count)]
        return "{ " + ", ".join(items) + " }"

    def record(self, depth: int) -> str:
        names = self.rng.sample(["a", "b", "Memory", "x", "Cpus"], self.rng.randint(1, 3))
        body = "; ".join(f"{n} = {self.expr(depth - 1)}" for n in names)
        return f"[ {body} ]"

    def call(self, depth: int) -> str:
        name = self.rng.choice(CORPUS_FUNCTIONS)
        kinds = FUNCTIONS[name]
        spelled = name.rstrip("1234")
        if self.rng.random() < 0.1:
            spelled = spelled.upper() if self.rng.random() < 0.5 else spelled.lower()
        args = [self.argument(kind, depth, name) for kind in kinds]
        if self.rng.random() < 0.03:  # wrong arity
            args.append("1")
        return f"{spelled}({', '.join(args)})"

    def argument(self, kind: str, depth: int, name: str) -> str:
        if kind == "m":
            return self.rng.choice(CONTEXT_EXPRS)
        if kind == "k":
            # No random expression here: a selection on a record built in the list
            # after countMatches' failed lookup is a documented difference.
            return self.rng.choice(RECORD_LISTS)
        if kind in TIME_KINDS:
            return self.time_argument(kind)
        if self.rng.random() < 0.2:
            return self.expr(depth - 1)
        if kind == "s":
            if name.startswith("stringList") and self.rng.random() < 0.6:
                return self.rng.choice((*NUMBER_STRINGS, "CsvList", "Users", '"alice"'))
            if name.startswith(("regexps", "replace")) and self.rng.random() < 0.3:
                return self.rng.choice(SUBSTITUTION_TEMPLATES)
            return self.rng.choice((*STRINGS, "Owner", "Name", "Version", "Pattern", "Upper"))
        if kind == "n":
            return self.rng.choice(INTS + REALS + ("Memory", "Ratio", "Neg", '"2.5"', "true"))
        if kind == "l":
            return (
                self.rng.choice(("Tags", "Numbers", "Mixed", "TARGET.Tags", "{ }"))
                if (self.rng.random() < 0.4)
                else self.list_(max(depth, 2))
            )
        if kind == "o":
            return self.rng.choice(OPTIONS)
        if kind == "p":
            return self.rng.choice(SUBST_OPTIONS)
        if kind == "P":
            if self.rng.random() < 0.5:
                return self.rng.choice(REGEX_PATTERNS)
            return self.rng.choice((*STRINGS, "Pattern", "Owner"))
        if kind == "d":
            return self.rng.choice(DELIMS)
        if kind == "c":
            return self.rng.choice(COMPARE_OPS)
        if kind == "e":
            return self.rng.choice(EVAL_TEXTS)
        if kind == "r":
            return self.rng.choice(UNPARSE_ARGS)
        if kind == "x":
            return self.rng.choice(
                (
                    "Tags",
                    "{ 1, 2.5, 4 }",
                    "2",
                    "2.5",
                    "Owner",
                    "Ad",
                    "-3",
                    "0",
                    "{ }",
                    '{ "4", 8 }',
                    "true",
                    '"2"',
                    "1e-9",
                    "Numbers",
                )
            )
        return self.expr(depth - 1)


def generate(seed: int, count: int, depth: int = 4) -> list[str]:
    """``count`` expressions from ``seed`` (deterministic)."""
    gen = Generator(seed)
    return [gen.expr(gen.rng.randint(1, depth)) for _ in range(count)]
