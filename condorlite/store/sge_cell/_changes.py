"""Changing a cell dump as ``qconf -M...`` would change the cell: ``--what-if`` and
``export sge``.

A change is written as an admin thinks of it:

=================================  ===========================================
``KEY=VALUE``                      a ``sched_conf`` key (``qconf -msconf``)
``sched_conf KEY=VALUE``           the same, spelled out
``user NAME KEY=VALUE``            a key of ``qconf -suser NAME`` (``-muser``)
``project NAME KEY=VALUE``         a key of ``qconf -sprj NAME`` (``-mprj``)
``userset NAME KEY=VALUE``         a key of ``qconf -su NAME`` (``-mu``); also
                                   ``department NAME KEY=VALUE``
``sharetree PATH shares=N``        the shares of a share-tree node by its path
                                   (``/``, ``/P1``, ``/P1/alice``; ``-mstree``)
=================================  ===========================================

``changed_dump`` writes a dump directory that holds the source dump's files as
symbolic links (jobs.xml may be hundreds of MB) and the changed files rewritten: the
line of the key replaced (its continuation lines with it), nothing else touched. The
result is then read by ``read_cell`` like any dump, so a change is checked exactly as
a value in a real dump is (a bad value is exit 65 naming the changed file's line). A
key the object does not have, an object or node that does not exist, is a usage
error naming the change.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from condorlite.errors import UsageError

from ._lines import key_lines, logical_lines, split_objects
from ._sharetree import read_share_tree

#: The words a change may start with -> the dump file it changes.
FILES = {"sched_conf": "sched_conf", "user": "users", "project": "projects",
         "userset": "usersets", "department": "usersets", "sharetree": "share_tree"}


@dataclass(frozen=True)
class CellChange:
    """One change: the ``file`` of the dump, the object ``name`` (a share-tree path for
    ``share_tree``; None for ``sched_conf``), the ``key`` and its new ``value``."""

    text: str
    file: str
    name: str | None
    key: str
    value: str


def parse_change(text: str) -> CellChange:
    """A change as given (module doc); a malformed one is a usage error naming it."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"--what-if {text!r}: {exc}") from None
    if len(words) == 1 and "=" in words[0]:
        words = ["sched_conf", *words]
    kind = words[0].lower() if words else ""
    if kind not in FILES:
        raise UsageError(f"--what-if {text!r}: expected KEY=VALUE or one of "
                         f"{', '.join(sorted(FILES))} first")
    wanted = 2 if kind == "sched_conf" else 3
    if len(words) != wanted or "=" not in words[-1]:
        form = "KEY=VALUE" if wanted == 2 else f"{kind} NAME KEY=VALUE"
        raise UsageError(f"--what-if {text!r}: expected {form}")
    key, _, value = words[-1].partition("=")
    if kind == "sharetree" and key != "shares":
        raise UsageError(f"--what-if {text!r}: a share-tree node's shares only "
                         "(sharetree PATH shares=N)")
    return CellChange(text, FILES[kind], None if wanted == 2 else words[1], key, value)


def _replace(text: str, first: int, key: str, value: str, separator: str) -> str:
    """``text`` with the logical line that starts at physical line ``first`` (1-based)
    replaced by ``key<separator>value``."""
    lines = text.split("\n")
    last = first - 1
    while lines[last].endswith("\\") and last + 1 < len(lines):
        last += 1
    lines[first - 1:last + 1] = [f"{key}{separator}{value}"]
    return "\n".join(lines)


def _in_objects(text: str, source: str, change: CellChange) -> str:
    lines = key_lines(text, source)
    for block in split_objects(lines, "name"):
        if block[0].value != change.name:
            continue
        for line in block:
            if line.key == change.key and line.key != "name":
                return _replace(text, line.number, line.key, change.value, " ")
        raise UsageError(f"--what-if {change.text!r}: {change.name} has no key "
                         f"{change.key!r} in {source}")
    raise UsageError(f"--what-if {change.text!r}: no {change.name!r} in {source}")


def _node_id(text: str, source: str, change: CellChange) -> int:
    root = read_share_tree(text, source, [])
    if root is None:
        raise UsageError(f"--what-if {change.text!r}: the cell has no share tree")
    node = root
    for part in [p for p in (change.name or "").split("/") if p]:
        node = next((c for c in node.children if c.name == part), None)  # type: ignore[assignment]
        if node is None:
            raise UsageError(f"--what-if {change.text!r}: no share-tree node {change.name}")
    return node.id


def _in_share_tree(text: str, source: str, change: CellChange) -> str:
    node = _node_id(text, source, change)
    current = None
    for number, line in logical_lines(text):
        key, _, value = line.partition("=")
        if key.strip() == "id":
            current = int(value)
        elif key.strip() == "shares" and current == node:
            return _replace(text, number, "shares", change.value, "=")
    raise UsageError(f"--what-if {change.text!r}: node {change.name} has no shares line")


def apply_change(text: str, source: str, change: CellChange) -> str:
    """``text`` (the dump file ``change.file``, named ``source``) with the change made."""
    if change.file == "sched_conf":
        for line in key_lines(text, source):
            if line.key == change.key:
                return _replace(text, line.number, line.key, change.value, " ")
        raise UsageError(f"--what-if {change.text!r}: sched_conf has no key {change.key!r}")
    if change.file == "share_tree":
        return _in_share_tree(text, source, change)
    return _in_objects(text, source, change)


def changed_dump(source: Path, changes: list[CellChange], dest: Path) -> None:
    """Make ``dest`` (an empty directory) a dump equal to ``source`` with ``changes``
    made in order (module doc)."""
    texts: dict[str, str] = {}
    for change in changes:
        if change.file not in texts:
            path = source / change.file
            if not path.is_file():
                raise UsageError(f"--what-if {change.text!r}: the dump has no "
                                 f"{change.file} file")
            texts[change.file] = path.read_text(encoding="utf-8")
        texts[change.file] = apply_change(texts[change.file], str(source / change.file),
                                          change)
    for entry in sorted(source.iterdir()):
        target = dest / entry.name
        if entry.name in texts:
            target.write_text(texts[entry.name], encoding="utf-8")
        else:
            target.symlink_to(entry.resolve())
