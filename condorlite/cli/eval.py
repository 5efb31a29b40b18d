"""``condorlite eval``: evaluate ClassAd expressions, like HTCondor's ``classad_eval``.

Each expression (from the arguments, then one per line of ``--file``) is evaluated with
MY = the first ad of ``--my`` and TARGET = the first ad of ``--target``. A syntax error in
one expression is reported for that expression only; the others are still evaluated and
the exit status is 65.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from condorlite.cli._params import JsonOpt, NowOpt
from condorlite.cli._state import now_or_clock
from condorlite.cli.errors import run_command
from condorlite.cli.render import Result
from condorlite.core.classad import ClassAd, ClassAdSyntaxError, parse_expr
from condorlite.core.classad.evaluator import evaluate_printed
from condorlite.core.classad.values import Error, Undefined, type_name
from condorlite.errors import DataError, InputMissingError
from condorlite.store.adfiles import read_ads

EX_DATAERR = 65


def _json_scalar(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def typed_value(value: Any, now: float) -> dict[str, Any]:
    """``{"type": T, "value": V}`` for one evaluated value (lists and ads recursively).

    Attributes of a nested ad are evaluated in that ad; Undefined and Error map to null.
    """
    kind = type_name(value)
    if value is Undefined or value is Error:
        out: Any = None
    elif isinstance(value, list):
        out = [typed_value(v, now) for v in value]
    elif isinstance(value, ClassAd):
        out = {name: typed_value(value.evaluate(name, now=int(now)), now) for name in value}
    else:
        out = _json_scalar(value)
    return {"type": kind, "value": out}


def _first_ad(path: Path | None, option: str) -> ClassAd | None:
    if path is None:
        return None
    loaded = read_ads([str(path)])
    if not loaded:
        raise DataError(f"{option} {path}: the file holds no ad")
    return loaded[0].ad


def _expressions(args: list[str], file: Path | None) -> list[tuple[str, int, int]]:
    """The expressions to evaluate, each with the file line it came from (0 for an
    argument) and the count of leading blanks stripped from that line (for columns)."""
    exprs = [(text, 0, 0) for text in args]
    if file is not None:
        try:
            # (stray bytes kept, as in ad files: ClassAd strings are bytes)
            lines = Path(file).read_text(encoding="utf-8", errors="surrogateescape").splitlines()
        except FileNotFoundError:
            raise InputMissingError(f"--file {file}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputMissingError(f"--file {file}: cannot read it ({exc})") from None
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                exprs.append((stripped, number, len(line) - len(line.lstrip())))
    return exprs


def _syntax_entry(
    text: str, exc: ClassAdSyntaxError, file_line: int, indent: int
) -> dict[str, Any]:
    line = file_line if file_line else exc.line
    return {
        "expr": text,
        "error": {
            "kind": "syntax",
            "message": exc.message,
            "line": line,
            "column": exc.column + indent,
        },
    }


def evaluate_all(
    exprs: list[tuple[str, int, int]], my: ClassAd | None, target: ClassAd | None, now: float
) -> list[dict[str, Any]]:
    """One JSON entry per expression, in input order."""
    entries = []
    for text, file_line, indent in exprs:
        try:
            tree = parse_expr(text)
        except ClassAdSyntaxError as exc:
            entries.append(_syntax_entry(text, exc, file_line, indent) | {"_exc": exc})
            continue
        value, printed = evaluate_printed(tree, my, target, now=int(now))
        entries.append({"expr": text, **typed_value(value, now), "_text": printed})
    return entries


def _error_entry(entry: dict[str, Any], file: Path | None) -> dict[str, Any]:
    """The envelope's error for one bad expression: where it is, what is wrong, a caret."""
    err, exc = entry["error"], entry["_exc"]
    where = f"{file}:{err['line']}" if file and err["line"] else f"line {err['line']}"
    return {
        "kind": "syntax",
        "message": f"{where}, column {err['column']}: {err['message']} in {entry['expr']!r}",
        "_detail": exc.caret,
    }


def _human(entries: list[dict[str, Any]]):
    """One line per evaluated expression, in ClassAd syntax (errors go to stderr)."""

    def draw(console: Console) -> None:
        for entry in entries:
            if "error" not in entry:
                console.print(entry["_text"], markup=False)

    return draw


def eval_command(
    expressions: Annotated[
        list[str] | None, typer.Argument(help="Expressions to evaluate.", show_default=False)
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option("--file", "-f", help="Read expressions from FILE, one per line (# comments)."),
    ] = None,
    my: Annotated[
        Path | None, typer.Option("--my", help="Ad file whose first ad is MY (any format).")
    ] = None,
    target: Annotated[
        Path | None,
        typer.Option("--target", help="Ad file whose first ad is TARGET (any format)."),
    ] = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Evaluate ClassAd expressions, as HTCondor's classad_eval does."""

    def body() -> Result:
        when = now_or_clock(now)
        exprs = _expressions(list(expressions or []), file)
        entries = evaluate_all(exprs, _first_ad(my, "--my"), _first_ad(target, "--target"), when)
        public = [{k: v for k, v in e.items() if not k.startswith("_")} for e in entries]
        errors = [_error_entry(e, file) for e in entries if "error" in e]
        return Result(
            command="eval",
            data={"results": public},
            human=_human(entries),
            exit_code=EX_DATAERR if errors else 0,
            errors=errors,
        )

    run_command("eval", as_json, body)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
