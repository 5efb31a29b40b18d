"""The import rules ``docs/design.md`` states, checked on every module of the package.

Each module's imports of condorlite (at any depth of the file, ``TYPE_CHECKING`` blocks
included) are resolved to the stage they reach (``_stage``), and each stage may import
only the stages its row of the design page names. A new import across stages that the
page does not allow fails here, naming the module, the line and the stage it reached,
so the page and the code change together. Imports inside functions are refused in
``core`` outright: they are how an import cycle gets hidden instead of mended.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "condorlite"

#: the modules at the top of ``core`` and the stage each belongs to (docs/design.md)
_TOP_MODULES = {
    "adeval": "door",
    "policy": "door",
    "decoding": "decoding",
    "ad_decoder": "decoding",
    "ad_screen": "decoding",
    "ad_reads": "decoding",
    "entry_keys": "decoding",
    "known_slots": "decoding",
    "model": "decoding",
}

#: stage -> the other stages it may import (its own is always allowed)
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "core": set(),  # (``core/__init__.py``: empty)
    "classad": set(),
    "door": {"classad"},
    "decoding": {"classad", "door"},
    "groups": {"classad", "door", "errors"},
    "accounting": {"groups", "door", "errors"},
    "matching": {"classad", "door", "decoding"},
    "negotiation": {"matching", "groups", "classad", "door", "decoding"},
    "sge": {"errors"},
    "store": {"classad", "door", "accounting", "sge", "errors", "forked"},
    "forked": {"errors"},
}


def _stage(dotted: str) -> str | None:
    """The stage a dotted module name of condorlite belongs to, or None outside it."""
    parts = dotted.split(".")
    if parts[0] != "condorlite" or len(parts) == 1:
        return None
    if parts[1] != "core":
        return parts[1]  # cli, store, errors, forked, __main__
    if len(parts) == 2:
        return "core"  # (``from condorlite.core import x``: resolved by the name)
    return _TOP_MODULES.get(parts[2], parts[2])


def _module_stage(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":  # (a package's own module: the package)
        parts = parts[:-1]
    return _stage(".".join(parts)) or ""


def _imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, the stage reached, inside a function) for each import of condorlite."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function.update(id(inner) for inner in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == "condorlite.core":
                names = [f"condorlite.core.{alias.name}" for alias in node.names]
        for name in names:
            stage = _stage(name)
            if stage is not None:
                found.append((node.lineno, stage, id(node) in in_function))
    return found


def _modules(top: str) -> list[Path]:
    return sorted((PACKAGE / top).rglob("*.py"))


@pytest.mark.parametrize("top", ["core", "store"])
def test_stages_import_only_what_the_design_page_allows(top: str) -> None:
    wrong = []
    for path in _modules(top):
        own = _module_stage(path)
        allowed = ALLOWED.get(own)
        assert allowed is not None, f"{path}: stage {own!r} is not on docs/design.md"
        for line, stage, _ in _imports(path):
            if stage != own and stage not in allowed:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} ({own}) imports {stage}")
    assert not wrong, "imports docs/design.md does not allow:\n" + "\n".join(wrong)


def test_core_has_no_imports_inside_functions() -> None:
    hidden = [f"{path.relative_to(PACKAGE)}:{line}"
              for path in _modules("core")
              for line, _, inside in _imports(path) if inside]
    assert not hidden, f"imports of condorlite inside functions in core: {hidden}"


def test_the_rules_see_the_imports_they_judge() -> None:
    """The resolution itself: a known import of each kind is found and staged."""
    negotiator = PACKAGE / "core" / "negotiation" / "negotiator.py"
    stages = {stage for _, stage, _ in _imports(negotiator)}
    assert "matching" in stages
    assert _stage("condorlite.core.adeval") == "door"
    assert _stage("condorlite.core.matching.list_scan") == "matching"
    assert _stage("condorlite.store.db") == "store"
    assert _module_stage(PACKAGE / "core" / "ad_decoder.py") == "decoding"
