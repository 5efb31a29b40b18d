"""The engine map a newcomer reads names code that exists.

``docs/negotiate.md``'s "Where the code is" (the table of packages and modules, and
the import graph above it) and "How a job travels from its ad to a match" (the
walk-through) name modules, classes, methods and functions in backticks. Each name
must be found in the code as it is now: a path (``negotiation/negotiator.py``,
``classad/``, ``cli/ad_convert.PlainJobs``) as a file or directory of the
repository, ending with that path, and what follows it as attributes of that module;
a dotted name (``TurnNegotiator.negotiate``, ``ad_screen.SHARED_LEAVES``,
``piece_costs.PieceCosts.cost``) as a module (by its last name) or a module-level
name of one, and then each attribute in turn (a class's methods, and the instance
attributes it declares: ``__slots__``, dataclass fields, ``self.<name> =``); a bare
name as a module, a module-level name or a class attribute anywhere in
``condorlite``.

The docs name ClassAd and configuration words in backticks too (``Requirements``,
``JobPrio``, ``PRE_JOB_RANK``, ``true``): a bare name that is no code is allowed when
the language or the examples define it (a ClassAd keyword of the lexer, an attribute
of an ad file under ``examples/``, a name in the configuration's source) or it is a
standard library module; spans that are expressions (spaces, operators) are not
names. Nothing here lists the names to check: the test reads the docs and the code
as they are.

The import graph (``a <- b``: b imports a, and nothing imports the other way round)
is checked on the sources: every package or module of a line is found, and no module
of ``a`` imports one of ``b``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import itertools
import pkgutil
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import condorlite
from condorlite.core.classad.lexer import KEYWORDS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "negotiate.md"
#: the sections a newcomer reads to find where a job's match, rank and limit are decided
SECTIONS = ("### Where the code is", "## How a job travels from its ad to a match")
#: a span that names code: identifiers, dots and slashes (anything else, spaces and
#: operators, is an expression or a command)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_./]*")


def _section(text: str, heading: str) -> str:
    """``heading``'s section: up to the next heading of its level or above."""
    start = text.index(heading + "\n")
    level = len(heading) - len(heading.lstrip("#"))
    end = re.compile(rf"^#{{1,{level}}} ", re.M).search(text, start + len(heading))
    return text[start:end.start() if end else len(text)]


def _sections() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return [_section(text, heading) for heading in SECTIONS]


def _spans(section: str) -> list[str]:
    """The inline code spans of ``section`` (fenced blocks left out), whitespace
    made single spaces."""
    plain = re.sub(r"```.*?```", "", section, flags=re.S)
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", plain)]


def _fences(section: str) -> list[str]:
    return re.findall(r"```\n(.*?)```", section, flags=re.S)


# -- the code -----------------------------------------------------------------------------


@cache
def _modules() -> dict[str, ModuleType]:
    """Every module of ``condorlite``, imported, by dotted name."""
    out = {"condorlite": condorlite}
    for info in pkgutil.walk_packages(condorlite.__path__, "condorlite."):
        out[info.name] = importlib.import_module(info.name)
    return out


@cache
def _by_tail() -> dict[str, list[ModuleType]]:
    out: dict[str, list[ModuleType]] = {}
    for name, module in _modules().items():
        out.setdefault(name.rsplit(".", 1)[-1], []).append(module)
    return out


@cache
def _globals() -> dict[str, list[object]]:
    """Every module-level name of a ``condorlite`` module defined there, with its
    objects."""
    out: dict[str, list[object]] = {}
    for module in _modules().values():
        for name, value in vars(module).items():
            if _defined(module, value):
                out.setdefault(name, []).append(value)
    return out


@cache
def _declared(cls: type) -> frozenset[str]:
    """The instance attributes ``cls`` (and its bases in ``condorlite``) declares:
    ``__slots__``, dataclass fields, annotations and ``self.<name> =`` in its source."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("condorlite"):
            continue
        slots = vars(klass).get("__slots__", ())
        names.update((slots,) if isinstance(slots, str) else slots)
        names.update(getattr(klass, "__dataclass_fields__", {}))
        names.update(vars(klass).get("__annotations__", {}))
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        names.update(re.findall(r"\bself\.([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)", source))
    return frozenset(names)


@cache
def _class_attributes() -> frozenset[str]:
    """Every attribute name of every class defined in ``condorlite``."""
    names: set[str] = set()
    for module in _modules().values():
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                names.update(vars(value))
                names.update(_declared(value))
    return frozenset(names)


def _defined(module: ModuleType, value: object) -> bool:
    """Whether ``value``, an attribute of ``module``, is its own: a class or a function
    imported from another module is not (the docs name where it is defined)."""
    if inspect.isclass(value) or inspect.isfunction(value):
        return value.__module__ == module.__name__
    return True


def _chain(obj: object, attributes: list[str]) -> bool:
    """Whether each of ``attributes`` is found in turn from ``obj``."""
    for i, name in enumerate(attributes):
        if hasattr(obj, name):
            value = getattr(obj, name)
            if inspect.ismodule(obj) and not _defined(obj, value):
                return False
            obj = value
        elif inspect.isclass(obj) and name in _declared(obj):
            return i == len(attributes) - 1  # (an instance attribute: nothing below it)
        else:
            return False
    return True


@cache
def _files(raw: bool = False) -> tuple[str, ...]:
    """The repository's files and directories, as posix paths relative to its root,
    without ``.py`` (a module's path) unless ``raw``."""
    out = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith((".git", "build")) or "__pycache__" in rel:
            continue
        out.append(rel if raw else rel.removesuffix(".py"))
    return tuple(out)


def _path_resolves(span: str) -> bool:
    """A path (module ``.py`` or not, directory with ``/``), then attributes after a dot
    in its last part (``negotiation/limits.shares``)."""
    if any(rel == span or rel.endswith("/" + span) for rel in _files(raw=True)):
        return True  # (a file as named: ``docs/groups.md``, ``core/decoding.py``)
    head, _, last = span.rstrip("/").rpartition("/")
    attributes: list[str] = []
    if not last.endswith(".py") and "." in last:
        last, *attributes = last.split(".")
    path = f"{head}/{last}" if head else last
    path = path.removesuffix(".py")
    found = [rel for rel in _files() if rel == path or rel.endswith("/" + path)]
    if not attributes:
        return bool(found)
    for rel in found:
        module = _modules().get(rel.replace("/", "."))
        if module is not None and _chain(module, attributes):
            return True
    return False


@cache
def _ad_attributes() -> frozenset[str]:
    """The attribute names of the example pool's ad files (lower case)."""
    names: set[str] = set()
    for path in (ROOT / "examples").rglob("*.ads"):
        names.update(name.lower() for name in re.findall(
            r"^\s*([A-Za-z_]\w*)\s*=", path.read_text(encoding="utf-8"), re.M))
    return frozenset(names)


@cache
def _configuration_text() -> str:
    return "\n".join((ROOT / "condorlite" / part).read_text(encoding="utf-8")
                     for part in ("core/policy.py", "store/config.py"))


def _word_allowed(name: str) -> bool:
    """A bare name that is no code but a ClassAd or configuration word, or the
    standard library's (module doc)."""
    return (name.lower() in KEYWORDS or name.lower() in _ad_attributes()
            # (a knob's name, or its tail: ``PRE_JOB_RANK`` of NEGOTIATOR_PRE_JOB_RANK)
            or re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9_])",
                         _configuration_text()) is not None
            or name in sys.stdlib_module_names)


def _unbuilt(head: str) -> bool:
    """Whether ``head`` is a compiled module that is not built in this checkout: no
    module of that name, but a directory of C sources (``_oldscan/``), whose
    functions the docs name "where built"."""
    return head not in _by_tail() and any(
        rel.endswith("/" + head) and any((ROOT / rel).glob("*.c")) for rel in _files())


def _resolves(span: str) -> bool:
    if "/" in span or span.endswith(".py"):
        return _path_resolves(span)
    head, *attributes = span.split(".")
    heads = [*_by_tail().get(head, ()), *_globals().get(head, ())]
    if any(_chain(obj, attributes) for obj in heads) or (attributes and _unbuilt(head)):
        return True
    return not attributes and (head in _class_attributes() or _word_allowed(head))


def _names(section: str) -> list[str]:
    return [span for span in _spans(section) if _NAME.fullmatch(span)]


# -- the tests ----------------------------------------------------------------------------


def test_the_sections_name_code_at_all() -> None:
    """The sections are found and name plenty (a reader that finds nothing passes
    nothing)."""
    where, walk = _sections()
    assert len(_names(where)) > 100
    assert len(_names(walk)) > 60


def test_every_name_in_the_map_and_the_walk_through_exists() -> None:
    stale = sorted({span for section in _sections() for span in _names(section)
                    if not _resolves(span)})
    assert not stale, f"docs/negotiate.md names code that is not there: {stale}"


def _package_modules(name: str) -> list[Path]:
    """The source files of the core package or module ``name``."""
    base = ROOT / "condorlite" / "core" / name
    if base.is_dir():
        return sorted(base.rglob("*.py"))
    return [base.with_suffix(".py")]


def _imports(path: Path) -> set[str]:
    """The ``condorlite.core`` modules a source file imports (absolute or relative)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def _within(imported: str, name: str) -> bool:
    prefix = f"condorlite.core.{name}"
    return imported == prefix or imported.startswith(prefix + ".")


def test_the_import_graph_holds() -> None:
    """Each ``a <- b`` of the map's graph: both exist, and no module of ``a`` imports
    one of ``b``."""
    where, _ = _sections()
    (graph,) = _fences(where)
    pairs = 0
    for line in graph.splitlines():
        for chain in re.split(r"\s{3,}", line.strip()):
            links = [[name.strip() for name in part.split(",")] for part in chain.split("<-")]
            for lower, upper in itertools.pairwise(links):
                for a in lower:
                    for b in upper:
                        assert _package_modules(a)[0].exists(), a
                        assert _package_modules(b)[0].exists(), b
                        back = sorted(str(path.relative_to(ROOT)) for path in _package_modules(a)
                                      if any(_within(i, b) for i in _imports(path)))
                        assert not back, f"{a} <- {b}, yet {back} import {b}"
                        pairs += 1
    assert pairs > 10


def test_a_stale_name_is_found() -> None:
    """What the check would report: a method, a module, a class or a path that is
    not there, and a name moved to another module (imported back is not enough)."""
    for stale in ("Cycle._no_such_step", "negotiation/no_such_module.py",
                  "no_such_module.Cycle", "NoSuchClassAnywhere",
                  "cli/negotiate_inputs._NoSuchName", "carving.Constant"):
        assert not _resolves(stale), stale
    for present in ("Cycle.run", "negotiation/negotiator.py", "limits.permits",
                    "partial.Constant", "classad/", "PRE_JOB_RANK"):
        assert _resolves(present), present
