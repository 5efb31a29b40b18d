"""``share_tree`` (``qconf -sstree``) and ``share_mon`` (``sge_share_mon -c 1 -h -n``).

The share tree file is ``key=value`` lines; each node starts at ``id=`` and has
``name``, ``type`` (0 user, 1 project), ``shares`` and ``childnodes`` (``NONE`` or
comma separated ids). qconf prints the nodes depth first, root first, but the reader
only relies on the root being the first node: it checks that ids are unique, that
every child id exists, and that the children links form a tree (no node reached twice,
so no cycle and no shared child) covering every node. The tree is built bottom-up
without recursion, so a hostile deep chain cannot exhaust Python's stack.

``sge_share_mon -h -n`` prints a header of the field names, a blank line, then one
line per node: tab separated ``name=value`` fields (``curr_time``, ``usage_time``,
``node_name``, ``user_name``, ``project_name``, ``shares``, ``job_count``, ``level%``,
``total%``, ``long_target_share``, ``short_target_share``, ``actual_share``, ``usage``,
``cpu``, ``mem``, ``io``, ``ltcpu``, ``ltmem``, ``ltio``; see
``sge_sharetree_printing.c``). ``node_name`` is the path: ``/`` for the root whatever
its name, ``/P1/alice`` below. The qmaster expands a project's ``default`` node into
one child per user seen in the project, so share_mon has paths
(``/P1/default/bob``) that the share tree file does not. Without a share tree
sge_share_mon prints ``No share tree`` (on stderr; the dump takes both streams) and
exits 2: that becomes no usage and a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from condorlite.core.sge.objects import ShareTreeNode, ShareUsage
from condorlite.errors import DataError

from . import _lines as L
from ._lines import Line
from ._objects import Notes


@dataclass(frozen=True)
class _Node:
    """A node as written, before the tree is linked."""

    id: int
    name: str
    type: int
    shares: int
    children: tuple[int, ...]
    line: Line  # the id= line, for messages
    children_line: Line | None


def _node_type(text: str) -> int:
    if text not in ("0", "1"):
        raise L.Expected("0 (user) or 1 (project)")
    return int(text)


def _child_ids(text: str) -> tuple[int, ...]:
    return tuple(L.to_count(part) for part in L.to_names(text))


_NODE_SCHEMA = {"id": L.to_count, "name": L.to_name, "type": _node_type,
                "shares": L.to_count, "childnodes": _child_ids}


def _read_node(block: list[Line], notes: Notes) -> _Node:
    values: dict[str, object] = {}
    children_line = None
    for line in block:
        if line.key not in _NODE_SCHEMA:
            notes.unknown_key(line)
            continue
        values[line.key] = line.convert(_NODE_SCHEMA[line.key])
        if line.key == "childnodes":
            children_line = line
    if "name" not in values:
        raise block[0].error(f"node {values['id']}: expected a name= line")
    return _Node(values["id"], values["name"], values.get("type", 0),  # type: ignore[arg-type]
                 values.get("shares", 0), values.get("childnodes", ()),  # type: ignore[arg-type]
                 block[0], children_line)


def _tree_order(nodes: dict[int, _Node], root: _Node) -> list[_Node]:
    """The nodes reachable from the root, parents before children; each reached once."""
    order: list[_Node] = []
    reached = {root.id}
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        for child in node.children:
            at = node.children_line or node.line
            if child not in nodes:
                raise at.error(f"node {node.id} ({node.name}): child {child} "
                                f"does not exist")
            if child in reached:
                raise at.error(f"node {node.id} ({node.name}): "
                                   f"child {child} is "
                                f"reached twice (a cycle or a shared child)")
            reached.add(child)
            stack.append(nodes[child])
    for node in nodes.values():
        if node.id not in reached:
            raise node.line.error(f"node {node.id} ({node.name}) is not "
                            f"below the root (node {root.id})")
    return order


def read_share_tree(text: str, source: str, notes: Notes) -> ShareTreeNode | None:
    blocks = L.split_objects(L.key_lines(text, source, separator="="), "id")
    if not blocks:
        return None
    nodes: dict[int, _Node] = {}
    for block in blocks:
        node = _read_node(block, notes)
        if node.id in nodes:
            raise node.line.error(f"node id {node.id} given twice")
        nodes[node.id] = node
    root = next(iter(nodes.values()))
    built: dict[int, ShareTreeNode] = {}
    for node in reversed(_tree_order(nodes, root)):  # children before their parent
        built[node.id] = ShareTreeNode(node.id, node.name, node.type, node.shares,
                                       tuple(built[c] for c in node.children))
    return built[root.id]


# --- share_mon ---------------------------------------------------------------------------

#: share_mon field -> (ShareUsage field, converter)
_USAGE_FIELDS = {
    "curr_time": ("curr_time", L.to_count),
    "usage_time": ("usage_time", L.to_count),
    "node_name": ("node", str),
    "user_name": ("user", str),
    "project_name": ("project", str),
    "shares": ("shares", L.to_count),
    "job_count": ("job_count", L.to_count),
    "level%": ("level_percent", L.to_float),
    "total%": ("total_percent", L.to_float),
    "long_target_share": ("long_target_share", L.to_float),
    "short_target_share": ("short_target_share", L.to_float),
    "actual_share": ("actual_share", L.to_float),
    "usage": ("usage", L.to_float),
    "cpu": ("cpu", L.to_float),
    "mem": ("mem", L.to_float),
    "io": ("io", L.to_float),
    "ltcpu": ("ltcpu", L.to_float),
    "ltmem": ("ltmem", L.to_float),
    "ltio": ("ltio", L.to_float),
}


#: The ShareUsage fields every row must give (all but the two times).
_REQUIRED_USAGE = frozenset(field for name, (field, _) in _USAGE_FIELDS.items()
                            if name not in ("curr_time", "usage_time"))


def _usage_row(number: int, line: str, header: list[str], source: str,
               notes: Notes) -> ShareUsage:
    cells = line.split("\t")  # the trailing delimiter went with the line's blanks
    pairs = [cell.partition("=") for cell in cells]
    if all(found for _, found, _ in pairs):
        items = [(name, value) for name, _, value in pairs]
    elif header and len(cells) == len(header):  # -h without -n: values in header order
        items = list(zip(header, cells, strict=True))
    else:
        raise DataError.at(source, number, f"expected tab separated name=value fields "
                        f"(sge_share_mon -n), found {line!r}")
    values: dict[str, object] = {}
    for name, value in items:
        known = _USAGE_FIELDS.get(name)
        if known is None:
            notes.add(f"{source}:{number}: unknown field {name!r} ignored")
            continue
        field, converter = known
        try:
            values[field] = converter(value)
        except L.Expected:  # again through Line, for the message with the line
            values[field] = Line(source, number, name, value).convert(converter)
    if values.keys() >= _REQUIRED_USAGE:
        return ShareUsage(**values)  # type: ignore[arg-type]
    missing = [name for name, (field, _) in _USAGE_FIELDS.items()
               if field not in values and name not in ("curr_time", "usage_time")]
    if missing:
        raise DataError.at(source, number, f"expected the fields {', '.join(missing)}, "
                        f"found none")
    return ShareUsage(**values)  # type: ignore[arg-type]


def read_share_mon(text: str, source: str, notes: Notes) -> dict[str, ShareUsage]:
    lines = list(L.logical_lines(text))
    if not lines:
        return {}
    first_number, first = lines[0]
    if "=" not in first and not first.startswith("curr_time"):
        notes.add(f"{source}:{first_number}: no share tree usage: {first.strip()!r}")
        return {}
    header: list[str] = []
    if "=" not in first:
        header = first.split()
        lines = lines[1:]
    out: dict[str, ShareUsage] = {}
    for number, line in lines:
        row = _usage_row(number, line, header, source, notes)
        if row.node in out:
            raise DataError.at(source, number, f"node {row.node!r} given twice")
        out[row.node] = row
    return out
