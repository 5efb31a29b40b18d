"""The dispatch part of a cell dump: hosts, queues, queue instances, running grants.

=======================  ======================================  ==========================
file                     command                                 read into
=======================  ======================================  ==========================
``hosts``                ``qconf -se global``, each exec host    ``ExecHost`` by name
``queues``               ``qconf -sq Q``, each cluster queue     ``ClusterQueue`` by name
``queue_instances.xml``  ``qstat -f -xml -u '*'``                ``QueueInstance`` (states)
``queue_resources.xml``  ``qstat -f -F -xml -u '*'``             ``QueueInstance.resources``
``running.xml``          ``qstat -xml -s r -g t -u '*'``         ``RunningGrant``
``global_conf``          ``qconf -sconf``                        text by key
=======================  ======================================  ==========================

All are optional: a dump without them has no queues and dispatches nothing. A queue
attribute may carry per-host values, ``slots 1,[vm=2],[other=4]`` (queue_conf(5)):
the text before the first ``[`` is the default, each ``[host=value]`` overrides it on
that host, and both are converted with the key's converter, so a bad override is a
``DataError`` naming the line like any other value.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

from condorlite.core.sge.queues import (
    ClusterQueue,
    ExecHost,
    QueueConf,
    QueueInstance,
    RunningGrant,
)

from . import _lines as L
from ._lines import Expected, Line
from ._objects import Notes, _fields
from ._xml import XmlValueError

RUNNING_COMMAND = "qstat -xml -s r -g t -u '*'"
RESOURCES_COMMAND = "qstat -f -F -xml -u '*'"


# --- converters ---------------------------------------------------------------------


def to_pairs(text: str) -> tuple[tuple[str, str], ...]:
    """``complex_values``/``load_thresholds``: ``name=value`` items separated by
    commas, in order; ``NONE`` is empty."""
    out: list[tuple[str, str]] = []
    for item in L.to_names(text):
        name, found, value = item.partition("=")
        if not found or not name or not value:
            raise Expected("name=value items separated by commas, or NONE")
        out.append((name, value))
    return tuple(out)


def _to_scaling(text: str) -> dict[str, float]:
    return {name: L.to_float(value) for name, value in to_pairs(text)}


def _to_loads(text: str) -> dict[str, str]:
    return dict(to_pairs(text))


HOST = {
    "hostname": ("name", L.to_name),
    "load_scaling": ("load_scaling", _to_scaling),
    "complex_values": ("complex_values", to_pairs),
    "load_values": ("load_values", _to_loads),
    "processors": ("processors", L.to_count),
    "user_lists": ("user_lists", L.to_names),
    "xuser_lists": ("xuser_lists", L.to_names),
    "projects": ("projects", L.to_names),
    "xprojects": ("xprojects", L.to_names),
    "usage_scaling": (None, L.to_text),
    "report_variables": (None, L.to_text),
}


def read_hosts(text: str, source: str, notes: Notes) -> dict[str, ExecHost]:
    """``qconf -se global`` and each execution host, concatenated."""
    out: dict[str, ExecHost] = {}
    for block in L.split_objects(L.key_lines(text, source), "hostname"):
        values = _fields(block, HOST, notes)  # type: ignore[arg-type]
        name = str(values["name"])
        if name in out:
            raise block[0].error(f"host {name!r} given twice")
        out[name] = ExecHost(**values)  # type: ignore[arg-type]
    return out


# --- queues -------------------------------------------------------------------------

#: queue key -> (QueueConf field, converter); other keys are kept out silently (they
#: do not change where a job may run: prolog, shell, s_cpu ...).
QUEUE_CONF = {
    "seq_no": ("seq_no", L.to_int),
    "slots": ("slots", L.to_count),
    "load_thresholds": ("load_thresholds", to_pairs),
    "complex_values": ("complex_values", to_pairs),
    "pe_list": ("pe_list", L.to_names),
    "qtype": ("qtype", L.to_names),
    "user_lists": ("user_lists", L.to_names),
    "xuser_lists": ("xuser_lists", L.to_names),
    "projects": ("projects", L.to_names),
    "xprojects": ("xprojects", L.to_names),
    "h_rt": ("h_rt", L.to_seconds),
    "s_rt": ("s_rt", L.to_seconds),
}
_OVERRIDE = re.compile(r"\[([^=\]\s]+)=([^\]]*)\]")


def split_overrides(line: Line) -> tuple[str, list[tuple[str, str]]]:
    """``1,[vm=2],[b=3]`` -> ``('1', [('vm', '2'), ('b', '3')])``."""
    value = line.value
    cut = value.find("[")
    if cut < 0:
        return value, []
    default = value[:cut].rstrip().rstrip(",").strip()
    rest = value[cut:]
    overrides: list[tuple[str, str]] = []
    position = 0
    while position < len(rest):
        match = _OVERRIDE.match(rest, position)
        if match is None:
            raise line.fail("a value with [host=value] overrides")
        overrides.append((match.group(1), match.group(2).strip()))
        position = match.end()
        while position < len(rest) and rest[position] in ", ":
            position += 1
    return default, overrides


def _convert(line: Line, text: str, converter) -> object:
    try:
        return converter(text)
    except Expected as exc:
        raise line.error(f"{line.key}: expected {exc}, found {text!r}") from None


def _queue(block: list[Line]) -> ClusterQueue:
    name = str(block[0].convert(L.to_name))
    hostlist: tuple[str, ...] = ()
    default: dict[str, object] = {}
    per_host: dict[str, dict[str, object]] = {}
    for line in block[1:]:
        if line.key == "hostlist":
            hostlist = tuple(str(h) for h in line.convert(L.to_names))  # type: ignore[union-attr]
        if line.key not in QUEUE_CONF:
            continue
        field_name, converter = QUEUE_CONF[line.key]
        text, overrides = split_overrides(line)
        default[field_name] = _convert(line, text, converter)
        for host, value in overrides:
            per_host.setdefault(host, {})[field_name] = _convert(line, value, converter)
    base = QueueConf(**default)  # type: ignore[arg-type]
    by_host = {host: replace(base, **values) for host, values in per_host.items()}
    return ClusterQueue(name=name, hostlist=hostlist, default=base, by_host=by_host)


def read_queues(text: str, source: str) -> dict[str, ClusterQueue]:
    """``qconf -sq Q`` for each cluster queue, concatenated."""
    out: dict[str, ClusterQueue] = {}
    for block in L.split_objects(L.key_lines(text, source), "qname"):
        queue = _queue(block)
        if queue.name in out:
            raise block[0].error(f"queue {queue.name!r} given twice")
        out[queue.name] = queue
    return out


def read_global_conf(text: str, source: str) -> dict[str, str]:
    """``qconf -sconf``: ``key value`` lines under a ``#global:`` title, as text."""
    lines = [line for line in L.key_lines(text, source) if not line.key.startswith("#")]
    return {line.key: line.value for line in lines}


# --- qstat -f -xml ------------------------------------------------------------------


def _int_of(element: ET.Element, tag: str) -> int:
    child = element.find(tag)
    if child is None:
        return 0
    text = (child.text or "").strip()
    if not text.isdigit():
        raise XmlValueError(child, f"{tag}: expected a count, found {text!r}")
    return int(text)


def _float_of(element: ET.Element, tag: str) -> float:
    child = element.find(tag)
    if child is None:
        return 0.0
    text = (child.text or "").strip()
    try:
        return float(text)
    except ValueError:
        raise XmlValueError(child, f"{tag}: expected a number, found {text!r}") from None


def _instance(element: ET.Element) -> QueueInstance:
    name_el = element.find("name")
    name = "" if name_el is None else (name_el.text or "").strip()
    queue, at, host = name.partition("@")
    if not at or not queue or not host:
        target = element if name_el is None else name_el
        raise XmlValueError(target, f"name: expected queue@host, found {name!r}")
    resources: dict[str, tuple[str, str]] = {}
    for res in element.findall("resource"):
        resources[res.get("name", "")] = (res.get("type", ""), (res.text or "").strip())
    return QueueInstance(
        name=name,
        queue=queue,
        host=host,
        slots_used=_int_of(element, "slots_used"),
        slots_reserved=_int_of(element, "slots_resv"),
        slots_total=_int_of(element, "slots_total"),
        state=(element.findtext("state") or "").strip(),
        resources=resources,
    )


def read_instances(root: ET.Element) -> dict[str, QueueInstance]:
    """Every ``Queue-List`` of ``qstat -f [-F] -xml``, by full name, in file order."""
    out: dict[str, QueueInstance] = {}
    for element in root.iter("Queue-List"):
        instance = _instance(element)
        if instance.name in out:
            raise XmlValueError(element, f"queue instance {instance.name!r} given twice")
        out[instance.name] = instance
    return out


def with_resources(
    states: dict[str, QueueInstance] | None, resources: dict[str, QueueInstance] | None
) -> dict[str, QueueInstance]:
    """Instances with the states of ``qstat -f`` and the values of ``qstat -f -F``
    (either file may be missing; both list the same instances)."""
    if states is None:
        return resources or {}
    if resources is None:
        return states
    return {
        name: replace(inst, resources=resources[name].resources) if name in resources else inst
        for name, inst in states.items()
    }


def read_running(root: ET.Element) -> tuple[RunningGrant, ...]:
    """``qstat -xml -s r -g t``: one grant per (job, task, queue instance), the master
    line first; slave lines add their slots to their queue instance's grant."""
    grants: dict[tuple[int, int, str], RunningGrant] = {}
    for element in root.iter("job_list"):
        if element.get("state") != "running":
            continue
        job = _int_of(element, "JB_job_number")
        tasks = (element.findtext("tasks") or "1").strip()
        if not tasks.isdigit():
            raise XmlValueError(element, f"tasks: expected a task id, found {tasks!r}")
        queue = (element.findtext("queue_name") or "").strip()
        if "@" not in queue:
            raise XmlValueError(element, f"queue_name: expected queue@host, found {queue!r}")
        master = (element.findtext("master") or "MASTER").strip() == "MASTER"
        slots = _int_of(element, "slots") or 1
        prio = _float_of(element, "JAT_prio")
        key = (job, int(tasks), queue)
        if key in grants:
            old = grants[key]
            grants[key] = replace(old, slots=old.slots + slots, master=old.master or master)
        else:
            grants[key] = RunningGrant(job, int(tasks), queue, slots, master, prio)
    return tuple(grants.values())
