"""Finding a job's share-tree node (``search_userprj_node``) and hanging the job there.

A job belongs to the node of its user, searched within its project's node when it has
a project in the tree; a user with no node gets a copy of ``default`` beside it
(``attach``). The search is the real scheduler's walk (``search``); ``Finder`` keeps
its answers for one calculation and an index of names that lets it go straight down.
"""

from __future__ import annotations

from dataclasses import dataclass

from condorlite.core.sge.refs import JobRef
from condorlite.core.sge.sharetree import Node, child_path


def search(
    node: Node,
    user: str | None,
    project: str | None,
    root: Node | None = None,
    names: dict[int, ChildIndex] | None = None,
) -> tuple[Node | None, Node | None]:
    """``search_userprj_node``: the node of ``user`` (within ``project`` when given) and
    its parent. Project subtrees are searched only for their own project; a user not
    found anywhere falls back to the ``default`` node.

    ``names`` (``child_index``) lets the search skip a child whose subtree had no node of
    the name it looks for when the index was made (a match needs one); children added
    since, and nodes it does not list, are searched."""
    root = root if root is not None else node
    if user is None and project is None:
        return None, None
    if node.is_project and node is not root and (project is None or node.name != project):
        return None, None
    if project is not None:
        if node.name == project:
            if not node.children:
                return node, None
            return search(node, user, None, node, names)
        for child in _holding(node, project, names):
            found, parent = search(child, user, project, root, names)
            if found is not None:
                return found, (node if parent is None and found is child else parent)
        return None, None
    if node.name == user:
        return node, None
    for child in _holding(node, user, names):
        found, parent = search(child, user, None, root, names)
        if found is not None:
            return found, (node if parent is None and found is child else parent)
    if node is root and user != "default":
        return search(node, "default", None, node, names)
    return None, None


@dataclass(eq=False, slots=True)
class ChildIndex:
    """A node's children by the names their subtrees hold (each list in child order),
    how many children that covers (a node given a child the index was not told of is
    searched child by child), each child's place, and the node's parent."""

    by_name: dict[str, list[Node]]
    size: int
    place: dict[int, int]
    parent: Node | None

    def hold(self, child: Node, name: str) -> None:
        """Record that ``child`` (one of the node's children) now holds ``name``."""
        found = self.by_name.setdefault(name, [])
        if any(c is child for c in found):
            return
        at = len(found)
        while at > 0 and self.place[id(found[at - 1])] > self.place[id(child)]:
            at -= 1
        found.insert(at, child)


def _holding(node: Node, name: str | None, index: dict[int, ChildIndex] | None) -> list[Node]:
    """The children of ``node`` whose subtree may hold a node called ``name``, in child
    order."""
    entry = index.get(id(node)) if index is not None else None
    if entry is None or entry.size != len(node.children):
        return node.children
    return entry.by_name.get(name, []) if name is not None else []


def child_index(root: Node) -> dict[int, ChildIndex]:
    """By node id, its ``ChildIndex``."""
    out: dict[int, ChildIndex] = {}

    def visit(node: Node) -> set[str]:
        held = {node.name}
        by_name: dict[str, list[Node]] = {}
        for child in node.children:
            below = visit(child)
            for name in below:
                by_name.setdefault(name, []).append(child)
            held |= below
        place = {id(child): i for i, child in enumerate(node.children)}
        out[id(node)] = ChildIndex(by_name, len(node.children), place, None)
        for child in node.children:
            out[id(child)].parent = node
        return held

    visit(root)
    return out


class Finder:
    """``search`` with its answers kept for one calculation (the tree does not change
    under it but for the copies of ``default`` that ``attach`` adds, and those change
    only the answer for their own user, which ``attach`` records), and with a
    ``child_index`` of the tree, told of every copy, so that a search goes straight down
    to the nodes of the name it looks for (1,000 users a tree level on a large cell)."""

    def __init__(self, root: Node) -> None:
        self.root = root
        self.found: dict[tuple[str | None, str | None], tuple[Node | None, Node | None]] = {}
        self._index = child_index(root)

    def added(self, parent: Node, copy: Node, key: tuple[str | None, str | None]) -> None:
        """``copy`` (of ``default``, named after its user) was appended to ``parent``'s
        children for the search ``key``: it is that key's answer from now on."""
        self.found[key] = (copy, parent)
        entry = self._index.get(id(parent))
        if entry is None or entry.size != len(parent.children) - 1:
            return  # a node the index does not cover: searched child by child
        entry.place[id(copy)] = entry.size
        entry.size += 1
        child, node = copy, parent
        while entry is not None:  # the copy's name is now in every ancestor's subtree
            entry.hold(child, copy.name)
            child, node = node, entry.parent
            entry = self._index.get(id(node)) if node is not None else None

    def find(self, user: str | None, project: str | None) -> tuple[Node | None, Node | None]:
        key = (user, project)
        found = self.found.get(key)
        if found is None:
            found = self.found[key] = search(self.root, user, project, names=self._index)
        return found


def attach(finder: Finder, ref: JobRef) -> None:
    """Find ``ref``'s node; a user reaching ``default`` gets a copy of it named after
    the user, added beside it (``sge_set_job_refs``)."""
    if ref.user is None and ref.project is None:
        return
    user = ref.user.name if ref.user else None
    project = ref.project.name if ref.project else None
    node, parent = finder.find(user, project)
    if node is not None and ref.user is not None and parent is not None and node.name == "default":
        name = ref.user.name
        copy = Node(name, node.shares, child_path(parent.path, name), temp=True)
        # sge_share_mon shows such a user under the default node, not beside it.
        copy.usage_path = child_path(node.path, name)
        parent.children.append(copy)
        finder.added(parent, copy, (user, project))
        node = copy
    ref.node = node
    if node is not None:
        node.job_ref_count += 1
        if not ref.queued:
            node.active_job_ref_count += 1
