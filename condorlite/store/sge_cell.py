"""Reading a Grid Engine cell dump: the verbatim output of ``qconf``, ``sge_share_mon``
and ``qstat -xml`` (layout in ``tools/sge/README.md``) into ``core.sge.objects.Cell``.

Formats, as SoGE 8.1.9 prints them:

* ``sched_conf``, ``users``, ``projects``, ``usersets``, ``pes``: ``key value`` lines,
  objects one after another, each starting at its ``name`` (``pe_name``) line; a line
  ending in a backslash continues on the next; ``NONE`` is empty.
* ``complexes``: ``qconf -sc``, eight columns a line, ``#`` lines are comments.
* ``share_tree``: ``key=value`` lines, a node starting at each ``id=``; ``childnodes``
  lists child ids.
* ``share_mon``: ``sge_share_mon -h -n``: a header line, then one node a line as
  tab-separated ``name=value`` fields.
* ``jobs.xml``: ``qstat -xml -j '*'``, read with the standard library's expat-based
  parser; a document type declaration is refused before parsing, so no entity can be
  declared (no billion-laughs expansion, no external entities).

A line that does not parse is a ``DataError`` (exit 65) naming file and line; a missing
required file (``sched_conf``, ``complexes``, ``jobs.xml``) an ``InputMissingError``
(66). Keys a newer Grid Engine adds are accepted with a warning in ``Cell.warnings``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import fields
from pathlib import Path

from condorlite.core.sge.objects import (
    Cell,
    Complex,
    Job,
    ParallelEnvironment,
    Project,
    ResourceRequest,
    SchedConf,
    ShareTreeNode,
    ShareUsage,
    SlotRange,
    Task,
    User,
    Userset,
)
from condorlite.errors import DataError, InputMissingError

REQUIRED = {
    "sched_conf": "qconf -ssconf",
    "complexes": "qconf -sc",
    "jobs.xml": "qstat -xml -j '*'",
}
_TIME = re.compile(r"^(\d+):(\d+):(\d+)$")


class _Lines:
    """The logical lines of a file with their numbers (backslash continuations joined)."""

    def __init__(self, path: Path) -> None:
        self.name = path.name
        self.items: list[tuple[int, str]] = []
        pending, start = "", 0
        for number, raw in enumerate(
            path.read_text(encoding="utf-8", errors="replace").splitlines(), 1
        ):
            if not pending:
                start = number
            if raw.endswith("\\"):
                pending += raw[:-1]
                continue
            line = pending + raw
            pending = ""
            if line.strip():
                self.items.append((start, line))

    def fail(self, line: int, message: str) -> DataError:
        return DataError(f"{self.name}:{line}: {message}")


def _read(directory: Path, name: str) -> _Lines | None:
    path = directory / name
    if not path.exists():
        if name in REQUIRED:
            raise InputMissingError(
                f"{path}: missing (the output of {REQUIRED[name]})",
                hint="make the dump with tools/sge/dump-cell.sh DIR",
            )
        return None
    return _Lines(path)


def _objects(lines: _Lines | None, first: str) -> list[tuple[int, dict[str, tuple[int, str]]]]:
    """``key value`` objects, each starting at a ``first`` line."""
    if lines is None:
        return []
    out: list[tuple[int, dict[str, tuple[int, str]]]] = []
    for number, line in lines.items:
        if line.lstrip().startswith("#"):
            continue
        key, _, value = line.strip().partition(" ")
        if key == first:
            out.append((number, {}))
        elif not out:
            raise lines.fail(number, f"expected '{first}' to start an object, found {key!r}")
        if key in out[-1][1]:
            raise lines.fail(number, f"{key}: given twice")
        out[-1][1][key] = (number, value.strip())
    return out


def _int(lines: _Lines, number: int, key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise lines.fail(number, f"{key}: expected an integer, found {value!r}") from None


def _float(lines: _Lines, number: int, key: str, value: str) -> float:
    try:
        result = float(value)
    except ValueError:
        raise lines.fail(number, f"{key}: expected a number, found {value!r}") from None
    if result != result or result in (float("inf"), float("-inf")):
        raise lines.fail(number, f"{key}: expected a finite number, found {value!r}")
    return result


def _bool(lines: _Lines, number: int, key: str, value: str) -> bool:
    if value.lower() in ("true", "1", "yes"):
        return True
    if value.lower() in ("false", "0", "no"):
        return False
    raise lines.fail(number, f"{key}: expected TRUE or FALSE, found {value!r}")


def _seconds(lines: _Lines, number: int, key: str, value: str) -> int | None:
    if value.upper() == "INFINITY":
        return None
    match = _TIME.match(value)
    if match:
        h, m, s = (int(g) for g in match.groups())
        return h * 3600 + m * 60 + s
    return _int(lines, number, key, value)


def _list(value: str) -> tuple[str, ...]:
    if value.upper() == "NONE":
        return ()
    return tuple(x for x in re.split(r"[,\s]+", value) if x)


def _pairs(lines: _Lines, number: int, key: str, value: str) -> dict[str, str]:
    out = {}
    for item in _list(value):
        name, sep, val = item.partition("=")
        out[name] = val if sep else ""
    return out


_SCHED_KINDS = {f.name: f.type for f in fields(SchedConf) if f.name != "raw"}


def read_sched_conf(lines: _Lines, warnings: list[str]) -> SchedConf:
    values: dict[str, object] = {}
    raw: dict[str, str] = {}
    seen: set[str] = set()
    for number, line in lines.items:
        key, _, value = line.strip().partition(" ")
        value = value.strip()
        if key in seen:
            raise lines.fail(number, f"{key}: given twice")
        seen.add(key)
        raw[key] = value
        kind = _SCHED_KINDS.get(key)
        if kind is None:
            warnings.append(f"{lines.name}:{number}: unknown key {key!r} ignored")
            continue
        values[key] = _sched_value(lines, number, key, value, str(kind))
    return SchedConf(raw=raw, **values)


def _sched_value(lines: _Lines, number: int, key: str, value: str, kind: str) -> object:
    if key in ("schedule_interval", "load_adjustment_decay_time", "default_duration"):
        return _seconds(lines, number, key, value)
    if key == "usage_weight_list":
        pairs = _pairs(lines, number, key, value)
        return {k: _float(lines, number, key, v) for k, v in pairs.items()}
    if key == "params":
        return _pairs(lines, number, key, value)
    if kind == "bool":
        return _bool(lines, number, key, value)
    if kind == "int":
        return _int(lines, number, key, value)
    if kind == "float":
        return _float(lines, number, key, value)
    return value


def read_complexes(lines: _Lines) -> dict[str, Complex]:
    out: dict[str, Complex] = {}
    for number, line in lines.items:
        if line.lstrip().startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 8:
            raise lines.fail(
                number,
                f"expected 8 columns (name shortcut type relop "
                f"requestable consumable default urgency), found {len(parts)}",
            )
        urgency = _float(lines, number, "urgency", parts[7])
        out[parts[0]] = Complex(
            parts[0],
            parts[1],
            parts[2].upper(),
            parts[3],
            parts[4].upper(),
            parts[5].upper(),
            parts[6],
            urgency,
        )
    return out


def _entities(lines: _Lines | None, warnings: list[str], known: set[str], first: str = "name"):
    for start, obj in _objects(lines, first):
        assert lines is not None
        for key, (number, _) in obj.items():
            if key not in known:
                warnings.append(f"{lines.name}:{number}: unknown key {key!r} ignored")
        yield start, obj


def _get_int(lines: _Lines, obj: dict[str, tuple[int, str]], key: str) -> int:
    if key not in obj:
        return 0
    number, value = obj[key]
    return _int(lines, number, key, value)


def read_users(lines: _Lines | None, warnings: list[str]) -> dict[str, User]:
    known = {"name", "oticket", "fshare", "delete_time", "default_project"}
    out = {}
    for _, obj in _entities(lines, warnings, known):
        assert lines is not None
        name = obj["name"][1]
        project = obj.get("default_project", (0, "NONE"))[1]
        out[name] = User(
            name,
            _get_int(lines, obj, "oticket"),
            _get_int(lines, obj, "fshare"),
            _get_int(lines, obj, "delete_time"),
            None if project.upper() == "NONE" else project,
        )
    return out


def read_projects(lines: _Lines | None, warnings: list[str]) -> dict[str, Project]:
    known = {"name", "oticket", "fshare", "acl", "xacl"}
    out = {}
    for _, obj in _entities(lines, warnings, known):
        assert lines is not None
        name = obj["name"][1]
        out[name] = Project(
            name,
            _get_int(lines, obj, "oticket"),
            _get_int(lines, obj, "fshare"),
            _list(obj.get("acl", (0, "NONE"))[1]),
            _list(obj.get("xacl", (0, "NONE"))[1]),
        )
    return out


def read_usersets(lines: _Lines | None, warnings: list[str]) -> dict[str, Userset]:
    known = {"name", "type", "fshare", "oticket", "entries"}
    out = {}
    for _, obj in _entities(lines, warnings, known):
        assert lines is not None
        name = obj["name"][1]
        types = frozenset(t.upper() for t in _list(obj.get("type", (0, "ACL"))[1]))
        out[name] = Userset(
            name,
            types,
            _get_int(lines, obj, "fshare"),
            _get_int(lines, obj, "oticket"),
            _list(obj.get("entries", (0, "NONE"))[1]),
        )
    return out


def read_pes(lines: _Lines | None, warnings: list[str]) -> dict[str, ParallelEnvironment]:
    known = {
        "pe_name",
        "slots",
        "user_lists",
        "xuser_lists",
        "start_proc_args",
        "stop_proc_args",
        "allocation_rule",
        "control_slaves",
        "job_is_first_task",
        "urgency_slots",
        "accounting_summary",
        "qsort_args",
    }
    out = {}
    for _, obj in _entities(lines, warnings, known, first="pe_name"):
        assert lines is not None
        name = obj["pe_name"][1]
        out[name] = ParallelEnvironment(
            name,
            _get_int(lines, obj, "slots"),
            _list(obj.get("user_lists", (0, "NONE"))[1]),
            _list(obj.get("xuser_lists", (0, "NONE"))[1]),
            obj.get("allocation_rule", (0, "$pe_slots"))[1],
            _flag(obj, "control_slaves", "FALSE"),
            _flag(obj, "job_is_first_task", "TRUE"),
            obj.get("urgency_slots", (0, "min"))[1],
        )
    return out


def _flag(obj: dict[str, tuple[int, str]], key: str, default: str) -> bool:
    return obj.get(key, (0, default))[1].upper() == "TRUE"


def read_share_tree(lines: _Lines | None) -> ShareTreeNode | None:
    if lines is None:
        return None
    nodes: dict[int, dict[str, str]] = {}
    first_line: dict[int, int] = {}
    current: dict[str, str] | None = None
    for number, line in lines.items:
        key, sep, value = line.strip().partition("=")
        if not sep:
            raise lines.fail(number, f"expected key=value, found {line.strip()!r}")
        if key == "id":
            node_id = _int(lines, number, key, value)
            if node_id in nodes:
                raise lines.fail(number, f"id {node_id} given twice")
            current = nodes[node_id] = {}
            first_line[node_id] = number
        elif current is None:
            raise lines.fail(number, f"expected 'id=' to start a node, found {key!r}")
        current[key] = value
    if not nodes:
        return None
    return _node(lines, nodes, first_line, min(nodes), set())


def _node(lines: _Lines, nodes, first_line, node_id: int, path: set[int]) -> ShareTreeNode:
    if node_id in path:
        raise lines.fail(first_line[node_id], f"node {node_id} is its own ancestor")
    raw = nodes[node_id]
    number = first_line[node_id]
    children = []
    for child in _list(raw.get("childnodes", "NONE")):
        child_id = _int(lines, number, "childnodes", child)
        if child_id not in nodes:
            raise lines.fail(number, f"childnodes: no node with id {child_id}")
        children.append(_node(lines, nodes, first_line, child_id, path | {node_id}))
    return ShareTreeNode(
        node_id,
        raw.get("name", ""),
        _int(lines, number, "type", raw.get("type", "0")),
        _int(lines, number, "shares", raw.get("shares", "0")),
        tuple(children),
    )


_MON_FLOATS = (
    "level%",
    "total%",
    "long_target_share",
    "short_target_share",
    "actual_share",
    "usage",
    "cpu",
    "mem",
    "io",
    "ltcpu",
    "ltmem",
    "ltio",
)


def read_share_mon(lines: _Lines | None, warnings: list[str]) -> dict[str, ShareUsage]:
    out: dict[str, ShareUsage] = {}
    if lines is None:
        return out
    for number, line in lines.items:
        if "node_name=" not in line:
            if "=" not in line and not line.startswith("curr_time"):
                warnings.append(f"{lines.name}:{number}: not a node line, ignored: {line[:60]!r}")
            continue
        kv = dict(f.split("=", 1) for f in line.split("\t") if "=" in f)
        nums = {k: _float(lines, number, k, kv.get(k, "0")) for k in _MON_FLOATS}
        node = kv["node_name"]
        out[node] = ShareUsage(
            node,
            kv.get("user_name", ""),
            kv.get("project_name", ""),
            _int(lines, number, "shares", kv.get("shares", "0")),
            _int(lines, number, "job_count", kv.get("job_count", "0")),
            nums["level%"],
            nums["total%"],
            nums["long_target_share"],
            nums["short_target_share"],
            nums["actual_share"],
            nums["usage"],
            nums["cpu"],
            nums["mem"],
            nums["io"],
            nums["ltcpu"],
            nums["ltmem"],
            nums["ltio"],
            curr_time=_int(lines, number, "curr_time", kv.get("curr_time", "0")),
            usage_time=_int(lines, number, "usage_time", kv.get("usage_time", "0")),
        )
    return out


def read_jobs(path: Path) -> tuple[Job, ...]:
    data = path.read_bytes()
    if b"<!DOCTYPE" in data[:4096].upper() or b"<!ENTITY" in data.upper():
        raise DataError(f"{path.name}: a document type declaration is not accepted")
    if not data.lstrip().startswith(b"<"):
        # qstat prints a message instead of XML when there are no jobs.
        return ()
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        line, column = exc.position
        raise DataError(f"{path.name}:{line}:{column}: not well-formed XML: {exc}") from None
    jobs = []
    for element in root.iter("element"):
        if element.find("JB_job_number") is None:
            continue
        jobs.append(_job(path.name, element))
    return tuple(jobs)


def _text_int(name: str, element: ET.Element, tag: str, default: int = 0) -> int:
    text = element.findtext(tag)
    if text in (None, ""):
        return default
    try:
        return int(float(text))
    except ValueError:
        number = element.findtext("JB_job_number")
        raise DataError(f"{name}: job {number}: {tag}: expected a number, found {text!r}") from None


def _ranges(element: ET.Element | None) -> tuple[SlotRange, ...]:
    if element is None:
        return ()
    return tuple(
        SlotRange(
            int(r.findtext("RN_min") or 0),
            int(r.findtext("RN_max") or 0),
            int(r.findtext("RN_step") or 1),
        )
        for r in element
    )


def _requests(element: ET.Element | None) -> tuple[ResourceRequest, ...]:
    if element is None:
        return ()
    return tuple(
        ResourceRequest(
            r.findtext("CE_name") or "",
            r.findtext("CE_stringval") or "",
            float(r.findtext("CE_doubleval") or 0.0),
        )
        for r in element
    )


def _job(name: str, e: ET.Element) -> Job:
    running = []
    for t in e.findall("JB_ja_tasks/*"):
        running.append(
            Task(
                _text_int(name, t, "JAT_task_number"),
                _text_int(name, t, "JAT_status"),
                _text_int(name, t, "JAT_start_time"),
            )
        )
    enrolled = {t.number for t in running}
    pending = [Task(n) for r in _ranges(e.find("JB_ja_n_h_ids")) for n in r.values()]
    if e.find("JB_ja_n_h_ids") is None and not running:
        held = any(
            e.find(tag) is not None
            for tag in ("JB_ja_u_h_ids", "JB_ja_o_h_ids", "JB_ja_s_h_ids", "JB_ja_a_h_ids")
        )
        if not held:
            pending = [
                Task(n)
                for r in _ranges(e.find("JB_ja_structure"))
                for n in r.values()
                if n not in enrolled
            ]
    queues = tuple(q.findtext("QR_name") or "" for q in e.findall("JB_hard_queue_list/*"))
    return Job(
        number=_text_int(name, e, "JB_job_number"),
        name=e.findtext("JB_job_name") or "",
        owner=e.findtext("JB_owner") or "",
        group=e.findtext("JB_group") or "",
        submission_time=_text_int(name, e, "JB_submission_time"),
        project=e.findtext("JB_project") or None,
        department=e.findtext("JB_department") or None,
        ppri=_text_int(name, e, "JB_priority", 1024) - 1024,
        deadline=_text_int(name, e, "JB_deadline"),
        override_tickets=_text_int(name, e, "JB_override_tickets"),
        jobshare=_text_int(name, e, "JB_jobshare"),
        hard_requests=_requests(e.find("JB_hard_resource_list")),
        soft_requests=_requests(e.find("JB_soft_resource_list")),
        hard_queues=queues,
        pe=e.findtext("JB_pe") or None,
        pe_range=_ranges(e.find("JB_pe_range")),
        reserve=(e.findtext("JB_reserve") or "").lower() == "true",
        tasks=tuple(sorted(running + pending, key=lambda t: t.number)),
    )


def read_cell(directory: Path) -> Cell:
    """The cell dump in ``directory`` (module doc)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputMissingError(
            f"{directory}: no such cell dump directory",
            hint="make one with tools/sge/dump-cell.sh DIR",
        )
    warnings: list[str] = []
    sched = _read(directory, "sched_conf")
    complexes = _read(directory, "complexes")
    _read(directory, "jobs.xml")
    assert sched is not None and complexes is not None
    now_lines = _read(directory, "now")
    now = None
    if now_lines is not None and now_lines.items:
        number, text = now_lines.items[0]
        now = _int(now_lines, number, "now", text.strip())
    tree = read_share_tree(_read(directory, "share_tree"))
    return Cell(
        sched_conf=read_sched_conf(sched, warnings),
        complexes=read_complexes(complexes),
        users=read_users(_read(directory, "users"), warnings),
        projects=read_projects(_read(directory, "projects"), warnings),
        usersets=read_usersets(_read(directory, "usersets"), warnings),
        pes=read_pes(_read(directory, "pes"), warnings),
        jobs=read_jobs(directory / "jobs.xml"),
        share_tree=tree,
        share_usage=read_share_mon(_read(directory, "share_mon"), warnings) if tree else {},
        now=now,
        warnings=tuple(warnings),
    )
