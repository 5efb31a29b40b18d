"""Reading ``condorlite.toml`` into ``condorlite.core.policy.Policy``.

Keys are HTCondor's knob names (matched case-insensitively, as HTCondor does); values
are TOML scalars, arrays or strings. Per-group knobs carry the group name as a suffix
(``GROUP_PRIO_FACTOR_group_physics``) and the group must be listed in ``GROUP_NAMES``.
Unknown keys fail with the nearest known name. Expression knobs are parsed once here,
so a bad expression stops the command before any work, naming the knob and its line.
Every failure is a ``ConfigError`` (exit 78).

``default_config_text(uid_domain)`` writes every knob, commented out with its default
and one line of explanation, except ``UID_DOMAIN``: it is written uncommented with the
machine's name at creation, so results do not change if the host is later renamed.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from condorlite.core.policy import Policy
from condorlite.errors import ConfigError


@dataclass(frozen=True)
class Knob:
    """One knob: HTCondor name, Policy field, value kind, lower bound, explanation."""

    name: str
    field: str
    kind: str  # number | int | bool | str | expr | list
    help: str
    minimum: float | None = None
    optional: bool = False


KNOBS: tuple[Knob, ...] = (
    Knob("PRIORITY_HALFLIFE", "priority_halflife", "number",
         "seconds for a real user priority to decay halfway back to 0.5", 1e-9),
    Knob("DEFAULT_PRIO_FACTOR", "default_prio_factor", "number",
         "priority factor of a new local user (the seed manual's value was 1.0)", 1.0),
    Knob("NICE_USER_PRIO_FACTOR", "nice_user_prio_factor", "number",
         "priority factor of nice-user.* submitters", 1.0),
    Knob("REMOTE_PRIO_FACTOR", "remote_prio_factor", "number",
         "priority factor of users outside ACCOUNTANT_LOCAL_DOMAIN (when that is set)", 1.0),
    Knob("ACCOUNTANT_LOCAL_DOMAIN", "accountant_local_domain", "str",
         "the local domain; unset means every user is local", optional=True),
    Knob("UID_DOMAIN", "uid_domain", "str",
         "domain appended to job owners without one (user@UID_DOMAIN)"),
    Knob("SLOT_WEIGHT", "slot_weight", "expr",
         "expression giving a slot's weight when its ad has no SlotWeight"),
    Knob("NEGOTIATOR_USE_SLOT_WEIGHTS", "negotiator_use_slot_weights", "bool",
         "charge and share by slot weight (false: every slot counts 1)"),
    Knob("PREEMPTION_REQUIREMENTS", "preemption_requirements", "expr",
         "when a better-priority user may preempt a running job (MY = slot, TARGET = job)"),
    Knob("PREEMPTION_RANK", "preemption_rank", "expr",
         "which claimed slot to preempt first (higher is preferred)"),
    Knob("NEGOTIATOR_PRE_JOB_RANK", "negotiator_pre_job_rank", "expr",
         "slot preference applied before the job's own Rank"),
    Knob("NEGOTIATOR_POST_JOB_RANK", "negotiator_post_job_rank", "expr",
         "slot preference applied after the job's own Rank"),
    Knob("SIGNIFICANT_ATTRIBUTES", "significant_attributes", "list",
         "job attributes defining autoclusters (unset: computed from the ads)", optional=True),
    Knob("NEGOTIATE_ALL_JOBS_IN_CLUSTER", "negotiate_all_jobs_in_cluster", "bool",
         "keep trying the jobs of an autocluster after one fails to match"),
    Knob("SLOTS", "slots", "list", "slot ad files or directories read by negotiate"),
    Knob("JOBS", "jobs", "list", "job ad files or directories read by negotiate"),
    Knob("HISTORY_RETENTION", "history_retention", "number",
         "seconds of history negotiate keeps (older rows are pruned, the newest row of each "
         "kind always kept); 0 keeps everything", 0.0),
    Knob("SGE_CELL_DUMP", "sge_cell_dump", "str",
         "Grid Engine cell dump directory read by the sge commands (relative to this file)",
         optional=True),
    Knob("GROUP_NAMES", "group_names", "list", "accounting groups (dotted for a hierarchy)"),
    Knob("GROUP_ACCEPT_SURPLUS", "group_accept_surplus", "bool",
         "groups may use slots beyond their quota when others leave them idle"),
    Knob("GROUP_AUTOREGROUP", "group_autoregroup", "bool",
         "group jobs over quota negotiate again with the <none> group"),
    Knob("GROUP_SORT_EXPR", "group_sort_expr", "expr",
         "order in which groups negotiate (unset: HTCondor's default)", optional=True),
    Knob("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS", "group_quota_max_allocation_rounds", "int",
         "rounds of surplus sharing between groups", 1),
    Knob("GROUP_QUOTA_ROUND_ROBIN_RATE", "group_quota_round_robin_rate", "number",
         "weighted slots a group may take per turn before the others get one "
         "(unset: no limit)", 1.0, optional=True),
    Knob("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", "negotiator_allow_quota_oversubscription",
         "bool", "let group quotas sum to more than the pool"),
)

#: Per-group knobs: prefix -> (Policy field, kind, lower bound, explanation).
#: Longest prefixes first so GROUP_QUOTA_DYNAMIC_x is not read as GROUP_QUOTA_<DYNAMIC_x>.
GROUP_KNOBS: tuple[tuple[str, str, str, float | None, str], ...] = (
    ("GROUP_QUOTA_DYNAMIC_", "group_quota_dynamic", "number", 0.0,
     "a group's quota as a fraction (0..1) of the pool"),
    ("GROUP_QUOTA_", "group_quota", "number", 0.0, "a group's quota in slot weight"),
    ("GROUP_ACCEPT_SURPLUS_", "group_accept_surplus_by_group", "bool", None,
     "GROUP_ACCEPT_SURPLUS for one group"),
    ("GROUP_AUTOREGROUP_", "group_autoregroup_by_group", "bool", None,
     "GROUP_AUTOREGROUP for one group"),
    ("GROUP_PRIO_FACTOR_", "group_prio_factor", "number", 1.0,
     "priority factor of new submitters in a group"),
)

_BY_NAME = {k.name: k for k in KNOBS}


def _fail(path: Path, key: str, message: str, text: str | None = None) -> ConfigError:
    line = _line_of(text, key) if text is not None else None
    return ConfigError.at(str(path), line, f"{key}: {message}")


def _line_of(text: str, key: str) -> int | None:
    pattern = re.compile(rf"^[ \t]*\"?{re.escape(key)}\"?[ \t]*=", re.IGNORECASE | re.MULTILINE)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def _convert(kind: str, value: Any, minimum: float | None) -> Any:
    """Convert one TOML value; raise ValueError with a message on a bad one."""
    if kind in ("number", "int"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"expected a number, got {value!r}")
        if kind == "int" and not isinstance(value, int):
            raise ValueError(f"expected an integer, got {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"expected a finite number, got {value!r}")
        if minimum is not None and value < minimum:
            raise ValueError(f"must be >= {minimum:g}, got {value!r}")
        return float(value) if kind == "number" else value
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise ValueError(f"expected true or false, got {value!r}")
    if kind in ("str", "expr"):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"expected a non-empty string, got {value!r}")
        return value.strip()
    if kind == "list":
        if isinstance(value, str):
            return tuple(p for p in re.split(r"[\s,]+", value) if p)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(v.strip() for v in value if v.strip())
        raise ValueError(f"expected a list of strings or a comma-separated string, got {value!r}")
    raise AssertionError(f"unknown knob kind {kind}")


def _check_expr(path: Path, key: str, expr: str, text: str) -> None:
    """Parse an expression knob once; a syntax error names the knob, line and column."""
    from condorlite.core.classad import parse_expr  # the parser lives with ClassAd-lite

    try:
        parse_expr(expr)
    except Exception as exc:  # ClassAdSyntaxError (or any parse failure) of this text
        column = getattr(exc, "column", None) or getattr(exc, "position", None)
        at = f" at column {column}" if column is not None else ""
        reason = getattr(exc, "message", None) or str(exc)
        raise _fail(path, key, f"invalid expression{at}: {reason}: {expr}", text) from None


def _suggest(key: str, groups: tuple[str, ...]) -> str | None:
    names = [k.name for k in KNOBS] + [p + g for p, *_ in GROUP_KNOBS for g in groups]
    close = difflib.get_close_matches(key.upper(), [n.upper() for n in names], n=1)
    if not close:
        return None
    return next(n for n in names if n.upper() == close[0])


def _group_knob(key: str) -> tuple[str, str, str, float | None, str] | None:
    upper = key.upper()
    for spec in GROUP_KNOBS:
        if upper.startswith(spec[0]) and len(upper) > len(spec[0]):
            return spec
    return None


def policy_from_mapping(data: dict[str, Any], path: Path, text: str = "") -> Policy:
    """Build a Policy from parsed TOML; every problem is a ConfigError naming the key."""
    values: dict[str, Any] = {}
    per_group: dict[str, tuple[str, Any]] = {}
    for key, raw in data.items():
        if isinstance(raw, dict):
            raise _fail(path, key, "tables are not used; write KNOB = value at top level", text)
        knob = _BY_NAME.get(key.upper())
        if knob is not None:
            try:
                values[knob.field] = _convert(knob.kind, raw, knob.minimum)
            except ValueError as exc:
                raise _fail(path, key, str(exc), text) from None
            if knob.kind == "expr":
                _check_expr(path, key, values[knob.field], text)
        elif _group_knob(key) is None:
            per_group[key] = ("unknown", raw)
        else:
            per_group[key] = ("group", raw)
    groups: tuple[str, ...] = values.get("group_names", Policy().group_names)
    by_lower = {g.lower(): g for g in groups}
    if len(by_lower) != len(groups):
        raise _fail(path, "GROUP_NAMES", "a group is listed twice", text)
    dicts: dict[str, dict[str, Any]] = {}
    for key, (what, raw) in per_group.items():
        if what == "unknown":
            near = _suggest(key, groups)
            hint = f" (did you mean {near}?)" if near else ""
            raise _fail(path, key, f"unknown configuration knob{hint}", text)
        prefix, fname, kind, minimum, _help = _group_knob(key)  # type: ignore[misc]
        group = by_lower.get(key[len(prefix):].lower())
        if group is None:
            raise _fail(path, key, f"group {key[len(prefix):]!r} is not in GROUP_NAMES", text)
        try:
            value = _convert(kind, raw, minimum)
        except ValueError as exc:
            raise _fail(path, key, str(exc), text) from None
        if fname == "group_quota_dynamic" and value > 1:
            raise _fail(path, key, f"must be a fraction between 0 and 1, got {raw!r}", text)
        dicts.setdefault(fname, {})[group] = value
    values.update(dicts)
    return Policy(**values)


def _toml_hint(text: str, exc: tomllib.TOMLDecodeError) -> str | None:
    """A hint for the usual mistake: a condor_config line copied as it is, its value an
    unquoted expression (``PREEMPTION_REQUIREMENTS = RemoteUserPrio > ...``)."""
    line_no = getattr(exc, "lineno", None)
    if line_no is None:
        match = re.search(r"line (\d+)", str(exc))
        line_no = int(match.group(1)) if match else None
    if line_no is None or line_no > len(text.splitlines()):
        return None
    key, sep, value = text.splitlines()[line_no - 1].partition("=")
    name = key.strip().strip('"').upper()
    if not sep or name not in _BY_NAME:
        return None
    value = value.strip()
    looks_toml = value[:1] in ('"', "'", "[", "-", "+") or value[:1].isdigit() or value in (
        "true", "false")
    if _BY_NAME[name].kind == "expr" or not looks_toml:
        return f'values are TOML: write expressions as quoted strings, e.g. {name} = "{value}"'
    return None


def override_value(text: str) -> Any:
    """A ``KNOB=VALUE`` override's value: a TOML value when it reads as one (``40``,
    ``true``, ``"x"``, ``["a", "b"]``), else the text itself (an expression such as
    ``RemoteUserPrio > SubmitterUserPrio * 1.2`` needs no quotes on a command line)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text.strip()


def _overridden(path: Path, overrides: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if path.is_file():
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    for knob, value in overrides.items():
        for key in [k for k in data if k.upper() == knob.upper()]:
            del data[key]
        data[knob] = override_value(value)
    return data


def policy_with(path: Path, overrides: dict[str, str]) -> Policy:
    """The policy of ``condorlite.toml`` at ``path`` (the defaults when there is none)
    with ``overrides`` (knob -> value text, ``override_value``) put in place of, or
    beside, its knobs: validated as a whole, so a bad override is a ConfigError
    naming it."""
    return policy_from_mapping(_overridden(path, overrides), path)


def config_text_with(path: Path, overrides: dict[str, str]) -> str:
    """``policy_with``'s configuration as a TOML text (one ``KNOB = value`` line per
    knob set), for a command that needs the changed policy as a file."""
    data = _overridden(path, overrides)
    return "".join(f"{key} = {_toml_value(value)}\n" for key, value in data.items())


def load_policy(path: Path) -> Policy:
    """Read and validate ``condorlite.toml`` at ``path``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: configuration file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}", hint=_toml_hint(text, exc)) from None
    return policy_from_mapping(data, path, text)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return f"{value:.1f}"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(json.dumps(v) for v in value) + "]"
    return json.dumps(value)


def default_config_text(uid_domain: str) -> str:
    """The commented default ``condorlite.toml`` (every knob, with its default)."""
    defaults = {f.name: getattr(Policy(), f.name) for f in fields(Policy)}
    out = [
        "# condorlite configuration: HTCondor knob names, TOML values.",
        "# Every knob is shown with its default; uncomment a line to change it.",
        "# Expressions are strings in ClassAd syntax. Per-group knobs take the group",
        "# name as a suffix and the group must be listed in GROUP_NAMES.",
        "",
    ]
    for knob in KNOBS:
        out.append(f"# {knob.help}")
        if knob.name == "UID_DOMAIN":
            out.append("# (written with this machine's name when the state was created)")
            out.append(f"UID_DOMAIN = {_toml_value(uid_domain)}")
        elif defaults[knob.field] is None:
            out.append(f"# {knob.name} = (unset)")
        else:
            out.append(f"# {knob.name} = {_toml_value(defaults[knob.field])}")
        out.append("")
    for prefix, _fname, _kind, _minimum, help_text in GROUP_KNOBS:
        out.append(f"# {help_text} (per group; no default)")
        example = {"GROUP_QUOTA_DYNAMIC_": "0.25", "GROUP_QUOTA_": "20.0",
                   "GROUP_PRIO_FACTOR_": "2000.0"}.get(prefix, "true")
        out.append(f"# {prefix}group_physics = {example}")
        out.append("")
    return "\n".join(out)
