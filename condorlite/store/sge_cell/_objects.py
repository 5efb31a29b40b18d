"""The qconf object files: sched_conf, complexes, users, projects, usersets, pes.

Each object kind is a table ``key -> (field, converter)``: a key with a field fills
that field of the dataclass, a key without one (``start_proc_args``,
``flush_submit_sec`` ...) is checked and dropped, a key not in the table (what a newer
Grid Engine adds) is dropped with a warning. qconf prints every key of an object, but
the reader does not insist: a missing key keeps the dataclass default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from condorlite.core.sge.objects import (
    Complex,
    ParallelEnvironment,
    Project,
    SchedConf,
    User,
    Userset,
)
from condorlite.errors import DataError

from . import _lines as L
from ._lines import Expected, Line

Converter = Callable[[str], object]
#: key -> (dataclass field or None to check and drop, converter)
Schema = dict[str, tuple[str | None, Converter]]


@dataclass
class Notes:
    """The warnings gathered while reading one dump, in file order."""

    items: list[str] = field(default_factory=list)

    def unknown_key(self, line: Line) -> None:
        self.items.append(f"{line.where}: unknown key {line.key!r} ignored")

    def add(self, text: str) -> None:
        self.items.append(text)


def _fields(lines: list[Line], schema: Schema, notes: Notes) -> dict[str, object]:
    values: dict[str, object] = {}
    for line in lines:
        if line.key not in schema:
            notes.unknown_key(line)
            continue
        name, converter = schema[line.key]
        value = line.convert(converter)
        if name is not None:
            values[name] = value
    return values


def _no_duplicate_keys(lines: list[Line]) -> None:
    seen: set[str] = set()
    for line in lines:
        if line.key in seen:
            raise line.error(f"{line.key}: given twice")
        seen.add(line.key)


# --- sched_conf ------------------------------------------------------------------------


def _hierarchy(text: str) -> str:
    """``policy_hierarchy``: letters O, F, S (each once) or NONE."""
    if text.upper() == "NONE":
        return ""
    if len(set(text)) != len(text) or not set(text) <= set("OFS"):
        raise Expected("letters from OFS, each at most once, or NONE")
    return text


SCHED_CONF: Schema = {
    "algorithm": ("algorithm", L.to_name),
    "schedule_interval": ("schedule_interval", L.to_finite_seconds),
    "maxujobs": ("maxujobs", L.to_count),
    "queue_sort_method": ("queue_sort_method", L.to_name),
    "job_load_adjustments": ("job_load_adjustments", L.to_text),
    "load_adjustment_decay_time": ("load_adjustment_decay_time", L.to_finite_seconds),
    "load_formula": ("load_formula", L.to_text),
    "schedd_job_info": ("schedd_job_info", L.to_text),
    "flush_submit_sec": (None, L.to_count),
    "flush_finish_sec": (None, L.to_count),
    "params": ("params", L.to_params),
    "reprioritize_interval": (None, L.to_finite_seconds),
    # halftime is hours; qconf -ssconf prints the stored whole number
    "halftime": ("halftime", L.to_count),
    "usage_weight_list": ("usage_weight_list", L.to_weights),
    "compensation_factor": ("compensation_factor", L.to_float),
    "weight_user": ("weight_user", L.to_float),
    "weight_project": ("weight_project", L.to_float),
    "weight_department": ("weight_department", L.to_float),
    "weight_job": ("weight_job", L.to_float),
    "weight_tickets_functional": ("weight_tickets_functional", L.to_count),
    "weight_tickets_share": ("weight_tickets_share", L.to_count),
    "share_override_tickets": ("share_override_tickets", L.to_bool),
    "share_functional_shares": ("share_functional_shares", L.to_bool),
    "max_functional_jobs_to_schedule": ("max_functional_jobs_to_schedule", L.to_count),
    "report_pjob_tickets": ("report_pjob_tickets", L.to_bool),
    "max_pending_tasks_per_job": ("max_pending_tasks_per_job", L.to_count),
    "halflife_decay_list": ("halflife_decay_list", L.to_text),
    "policy_hierarchy": ("policy_hierarchy", _hierarchy),
    "weight_ticket": ("weight_ticket", L.to_float),
    "weight_waiting_time": ("weight_waiting_time", L.to_float),
    "weight_deadline": ("weight_deadline", L.to_float),
    "weight_urgency": ("weight_urgency", L.to_float),
    "weight_priority": ("weight_priority", L.to_float),
    "max_reservation": ("max_reservation", L.to_count),
    "default_duration": ("default_duration", L.to_seconds),
}


def read_sched_conf(text: str, source: str, notes: Notes) -> SchedConf:
    lines = L.key_lines(text, source)
    _no_duplicate_keys(lines)
    values = _fields(lines, SCHED_CONF, notes)
    raw = {line.key: line.value for line in lines}
    return SchedConf(raw=raw, **values)  # type: ignore[arg-type]


# --- complexes -------------------------------------------------------------------------

_TYPES = frozenset({"INT", "DOUBLE", "MEMORY", "TIME", "STRING", "CSTRING", "RESTRING",
                    "HOST", "BOOL", "RSMAP"})
_RELOPS = frozenset({"==", "<", "<=", ">", ">=", "!=", "EXCL"})
_COMPLEX_COLUMNS = "name shortcut type relop requestable consumable default urgency"


def _complex(number: int, line: str, source: str) -> Complex:
    parts = line.split()
    if len(parts) != 8:
        raise DataError.at(source, number, f"expected 8 columns ({_COMPLEX_COLUMNS}), "
                        f"found {len(parts)}: {line!r}")
    name, shortcut, kind, relop, requestable, consumable, default, urgency = parts
    checks = (("type", kind.upper(), _TYPES), ("relop", relop, _RELOPS),
              ("requestable", requestable.upper(), {"YES", "NO", "FORCED"}),
              ("consumable", consumable.upper(), {"YES", "NO", "JOB"}))
    for column, value, allowed in checks:
        if value not in allowed:
            raise DataError.at(source, number, f"{name}: {column}: expected one of "
                            f"{', '.join(sorted(allowed))}, found {value!r}")
    number_urgency = Line(source, number, f"{name}: urgency", urgency).convert(L.to_float)
    return Complex(name, shortcut, kind.upper(), relop, requestable.upper(),
                   consumable.upper(), default, number_urgency)  # type: ignore[arg-type]


def read_complexes(text: str, source: str) -> dict[str, Complex]:
    """``qconf -sc``: one complex a line; ``#`` lines (the column header, the rule,
    the closing ``# >#< starts a comment`` note) are comments."""
    out: dict[str, Complex] = {}
    shortcuts: dict[str, str] = {}
    for number, line in L.logical_lines(text):
        if line.startswith("#"):
            continue
        item = _complex(number, line, source)
        if item.name in out:
            raise DataError.at(source, number, f"complex {item.name!r} given twice")
        if item.shortcut in shortcuts:
            raise DataError.at(source, number, f"shortcut {item.shortcut!r} of "
                            f"{item.name!r} is already {shortcuts[item.shortcut]!r}'s")
        out[item.name] = item
        shortcuts[item.shortcut] = item.name
    return out


# --- users, projects, usersets, pes ------------------------------------------------------

USER: Schema = {
    "name": ("name", L.to_name),
    "oticket": ("oticket", L.to_count),
    "fshare": ("fshare", L.to_count),
    "delete_time": ("delete_time", L.to_count),
    "default_project": ("default_project", L.to_optional_name),
}
PROJECT: Schema = {
    "name": ("name", L.to_name),
    "oticket": ("oticket", L.to_count),
    "fshare": ("fshare", L.to_count),
    "acl": ("acl", L.to_names),
    "xacl": ("xacl", L.to_names),
}


def _userset_types(text: str) -> frozenset[str]:
    types = frozenset(L.to_names(text))
    if not types or not types <= {"ACL", "DEPT"}:
        raise Expected("ACL, DEPT or ACL,DEPT")
    return types


USERSET: Schema = {
    "name": ("name", L.to_name),
    "type": ("types", _userset_types),
    "fshare": ("fshare", L.to_count),
    "oticket": ("oticket", L.to_count),
    "entries": ("entries", L.to_names),
}
PE: Schema = {
    "pe_name": ("name", L.to_name),
    "slots": ("slots", L.to_count),
    "user_lists": ("user_lists", L.to_names),
    "xuser_lists": ("xuser_lists", L.to_names),
    "start_proc_args": (None, L.to_text),
    "stop_proc_args": (None, L.to_text),
    "allocation_rule": ("allocation_rule", L.to_name),
    "control_slaves": ("control_slaves", L.to_bool),
    "job_is_first_task": ("job_is_first_task", L.to_bool),
    "urgency_slots": ("urgency_slots", L.to_name),
    "accounting_summary": (None, L.to_bool),
    "qsort_args": (None, L.to_text),
}


@dataclass(frozen=True)
class Kind:
    """One object kind of a concatenated file: the key that starts an object, its
    schema and its dataclass."""

    first_key: str
    schema: Schema
    make: Callable[..., object]
    label: str


KINDS = {
    "users": Kind("name", USER, User, "user"),
    "projects": Kind("name", PROJECT, Project, "project"),
    "usersets": Kind("name", USERSET, Userset, "userset"),
    "pes": Kind("pe_name", PE, ParallelEnvironment, "parallel environment"),
}


def read_objects(text: str, source: str, kind: Kind, notes: Notes) -> dict[str, object]:
    """Every object of a concatenated ``qconf -s...`` file, by name, in file order."""
    out: dict[str, object] = {}
    for block in L.split_objects(L.key_lines(text, source), kind.first_key):
        values = _fields(block, kind.schema, notes)
        name = values["name"]
        if name in out:
            raise block[0].error(f"{kind.label} {name!r} given twice")
        out[name] = kind.make(**values)  # type: ignore[arg-type]
    return out
