"""``condorlite import FILE``: seed or refresh the accountant from a real HTCondor pool.

Accepted input (any ClassAd format condorlite reads; ``-`` is stdin):

* ``condor_userprio -allusers -long`` output: one accounting ad per record (``Name``,
  ``Priority`` = effective priority, ``PriorityFactor``, ``ResourcesUsed``,
  ``WeightedResourcesUsed``, ``AccumulatedUsage``, ``WeightedAccumulatedUsage``,
  ``BeginUsageTime``, ``LastUsageTime``, ``Ceiling``, ``Floor``, ``LastUpdate``, and
  on a group record ``HierWeightedResourcesUsed``, the usage of its whole subtree...);
  this is also what ``condorlite userprio --long`` prints (plus ``RealPriority``);
* the legacy single ad with numbered attributes (``Name1``, ``Priority1``, ...).

Each imported record replaces the record of the same name; other records stay. The
real priority is ``RealPriority`` when present, else ``Priority / PriorityFactor``
(as condor_userprio derives it). A record's figures are valid at its ``LastUpdate``;
they are brought forward to ``--now`` with the accountant's update rule, as the rest of
the state is, so decay continues from where the real pool left it. Group pseudo-records
``<none>`` and ``.`` are skipped (condorlite computes group totals itself).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, Clock, open_store
from condorlite.cli.errors import run_command
from condorlite.cli.render import Result, print_text
from condorlite.core import accounting as acct
from condorlite.core.accounting import AccountantState, Record
from condorlite.core.policy import Policy
from condorlite.errors import DataError, InputMissingError

_NUMBERED = re.compile(r"^(.*?[A-Za-z_])(\d+)$")
_SKIPPED_GROUPS = ("<none>", ".")


def read_text(file: str) -> tuple[str, str]:
    """(text, display name) of FILE, or of stdin for ``-``."""
    if file == "-":
        return sys.stdin.read(), "<stdin>"
    path = Path(file)
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except FileNotFoundError:
        raise InputMissingError(f"{file}: no such file") from None
    except IsADirectoryError:
        raise InputMissingError(f"{file}: is a directory, not a file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputMissingError(f"{file}: cannot read: {exc}") from None


def ads_to_entries(text: str, source: str) -> list[dict[str, Any]]:
    """Parse the text and return one ``{lower-case attribute: value}`` per record."""
    from condorlite.core.classad import ClassAdSyntaxError, parse_ads

    try:
        ads = list(parse_ads(text, filename=source))
    except ClassAdSyntaxError as exc:
        raise DataError(f"{source}: not readable as ClassAds: {exc}") from None
    entries = [{name.lower(): ad.evaluate(name) for name, _ in ad.items()} for ad in ads]
    if len(entries) == 1 and ("numsubmittors" in entries[0] or "name1" in entries[0]):
        return _split_legacy(entries[0])
    return entries


def _split_legacy(big: dict[str, Any]) -> list[dict[str, Any]]:
    """The legacy one-ad form: ``Name3``, ``Priority3``... -> the third record."""
    by_index: dict[int, dict[str, Any]] = {}
    for key, value in big.items():
        match = _NUMBERED.match(key)
        if match:
            by_index.setdefault(int(match.group(2)), {})[match.group(1)] = value
    shared = {k: v for k, v in big.items() if k == "lastupdate"}
    return [{**shared, **by_index[i]} for i in sorted(by_index)]


#: The largest figure an imported record may carry: integers past 2**53 lose precision
#: as reals, and no real pool's usage or time comes near it.
_LARGEST = float(2**53)
#: Times past the year 9999 cannot be printed (and are no real pool's).
_LATEST_TIME = 253402300799.0
_TIMES = ("BeginUsageTime", "LastUsageTime", "LastUpdate")


def _number(entry: dict[str, Any], key: str, default: float, where: str,
            minimum: float = 0.0) -> float:
    """The record's ``key`` as a finite number in range: a NaN, an infinity, a negative
    figure or an absurd one would be stored and break every later command, so the whole
    import is refused (65) naming the record and the attribute."""
    value = entry.get(key.lower(), default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DataError(f"{where}: {key} must be a number, not {value!r}")
    number = float(value) if abs(value) < 1e308 else float("inf")
    if number != number or number in (float("inf"), float("-inf")):
        raise DataError(f"{where}: {key} must be a finite number, not {value!r}")
    highest = _LATEST_TIME if key in _TIMES else _LARGEST
    if not minimum <= number <= highest:
        raise DataError(f"{where}: {key} must be between {minimum:g} and {highest:g}, "
                        f"not {value!r}")
    return number


def entry_to_record(entry: dict[str, Any], policy: Policy, where: str) -> Record | None:
    """One accounting ad -> a Record (None for a group pseudo-record to skip)."""
    name = entry.get("name")
    if (not isinstance(name, str) or not name.strip() or any(c.isspace() for c in name)
            or acct.CONTROL.search(name)):
        raise DataError(f"{where}: Name must be a submitter name string without spaces or "
                        f"control characters, not {name!r}")
    if name in _SKIPPED_GROUPS:
        return None
    if name.count("@") > 1:
        raise DataError(f"{where}: {name!r} is not user@domain or a group name")
    factor = _number(entry, "PriorityFactor", 0.0, where)
    if factor < acct.MIN_PRIORITY_FACTOR:  # HTCondor reports 0 for "not set yet"
        factor = acct.initial_factor(name, policy)
    if "realpriority" in entry:
        real = _number(entry, "RealPriority", acct.MIN_PRIORITY, where)
    else:
        real = _number(entry, "Priority", acct.MIN_PRIORITY * factor, where) / factor
    accumulated = _number(entry, "AccumulatedUsage", 0.0, where)
    group, is_group = acct.assigned_group(name, policy)
    return Record(
        name=name,
        priority=real,
        priority_factor=factor,
        resources_used=int(_number(entry, "ResourcesUsed", 0, where)),
        weighted_resources_used=_number(entry, "WeightedResourcesUsed", 0.0, where),
        accumulated_usage=accumulated,
        weighted_accumulated_usage=_number(entry, "WeightedAccumulatedUsage", accumulated,
                                           where),
        begin_usage_time=float(int(_number(entry, "BeginUsageTime", 0, where))),
        last_usage_time=float(int(_number(entry, "LastUsageTime", 0, where))),
        ceiling=int(_number(entry, "Ceiling", -1, where, minimum=-1)),
        floor=max(0, int(_number(entry, "Floor", 0, where))),
        is_accounting_group=is_group,
        accounting_group=group,
        # (a group record decays towards its subtree's usage: ``accounting._age``)
        hier_weighted_resources_used=(
            max(0.0, _number(entry, "HierWeightedResourcesUsed", 0.0, where))
            if is_group else 0.0),
    )


def merge_imported(
    state: AccountantState, imported: list[tuple[Record, float | None]], policy: Policy,
    now: float,
) -> AccountantState:
    """``state`` at ``now`` with each imported record (brought from its LastUpdate to now)."""
    state = acct.update_priorities(state, policy, now)
    records = dict(state.records)
    for rec, last_update in imported:
        single = AccountantState(last_update, {rec.name: rec})
        records[rec.name] = acct.update_priorities(single, policy, now).records[rec.name]
    return AccountantState(state.last_update_time, records)


def build_import(
    file: str, state_dir, now: str | float | None, lock_timeout: float, config=None
) -> Result:
    clock = Clock(now)
    text, source = read_text(file)
    store = open_store(state_dir, lock_timeout, config)
    imported: list[tuple[Record, float | None]] = []
    skipped: list[str] = []
    for i, entry in enumerate(ads_to_entries(text, source), start=1):
        name = entry.get("name")
        where = f"{source}: record {i}" + (f" ({name})" if isinstance(name, str) else "")
        rec = entry_to_record(entry, store.policy, where)
        if rec is None:
            skipped.append(str(entry.get("name")))
            continue
        last = None
        if "lastupdate" in entry:
            last = _number(entry, "LastUpdate", 0, f"{source}: record {i} ({rec.name})")
        imported.append((rec, last))
    if not imported:
        raise DataError(f"{source}: no accountant records found")
    with store.transaction(write=True) as tx:
        at = clock.read()  # after the lock: see Clock
        state = merge_imported(tx.load_accountant(), imported, store.policy, at)
        tx.save_accountant(state)
        names = sorted(r.name for r, _ in imported)
        message = f"Imported {len(names)} accountant records from {source}"
        tx.add_history("import", message, {"file": source, "names": names}, at)
    data = {"imported": len(names), "names": names, "skipped": skipped}

    def human(console) -> None:
        print_text(console, message)

    return Result(command="import", data=data, human=human)


def register(app: typer.Typer) -> None:
    @app.command("import")
    def import_command(
        file: Annotated[str, typer.Argument(
            metavar="FILE", help="condor_userprio -allusers -long output (or - for stdin).")],
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        """Seed or refresh the accountant from condor_userprio -long output."""
        run_command("import", as_json, lambda: build_import(
            file, state_dir, now, lock_timeout, config))
