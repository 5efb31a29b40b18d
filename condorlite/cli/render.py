"""Turning a command's Result into what the user sees: human text or one JSON envelope.

Contract (DESIGN.md 2.3): with ``--json`` exactly one document is printed on stdout,
errors included::

    {"schema_version": 1, "command": "...", "status": "ok"|"error",
     "data": ..., "errors": [...]}

Human output goes through a rich Console that prints plain text (no colour, no markup
interpretation) when stdout is not a terminal or NO_COLOR is set. rich is imported only
when a console is made: a ``--json`` run never needs it.

While the console script runs (``cli.main``, which ends the process with ``os._exit``)
every rendered Result is retained (``retain_results``): a command such as
``negotiate`` leaves millions of small objects (ads, matches) behind, and freeing them
one by one when the Result is dropped would take a sizeable share of the command's
time, memory the operating system reclaims at once on exit anyway.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from condorlite.cli import jsontext

if TYPE_CHECKING:
    from rich.console import Console

SCHEMA_VERSION = 1

#: The Results rendered while the console script runs; None otherwise (module doc).
_retained: list[Result] | None = None


@dataclass
class Result:
    """What a command hands to the renderer.

    ``data`` is JSON-ready (numbers stay numbers); ``human`` draws the same facts for a
    person. ``exit_code`` lets a command report a partial failure (e.g. eval with one bad
    expression) while still printing everything it computed.
    """

    command: str
    data: Any
    human: Callable[[Console], None] | None = None
    exit_code: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    #: What the command computed the data from (e.g. the decoded ads), held as long as
    #: the Result so that it is not freed before the process exits (module doc).
    sources: tuple[Any, ...] = ()


def retain_results() -> None:
    """From now on keep every rendered Result (and so its ``sources``) until the
    process exits; only ``cli.main``, which exits without freeing them, asks for it."""
    global _retained
    _retained = []


def real(value: float) -> float:
    """A quantity or a time for ``--json``: always a JSON real (``8.0``, never ``8``),
    so a field has one type whatever its value (DESIGN.md 2.3); counts stay integers.
    Marked when under 1e-4 (``jsontext.real``): one unmarked tiny float (a nice user's
    share of 3e-8) sends the whole document to the ``json`` module's encoder, ten times
    slower on a cycle's tens of thousands of matches."""
    return jsontext.real(float(value))


def plain(value: float) -> str:
    """A number for a person, as JSON used to print it: whole numbers bare (``8``),
    others as Python's shortest repr (``0.5``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def local_stamp(epoch: float, fmt: str = "%Y-%m-%d %H:%M:%S") -> str:
    """``epoch`` as a person reads it: local time (``TZ``), labelled with its zone
    (``2025-10-09 08:53:20 UTC``, ``... EDT``).

    The one rule of the human output (DESIGN.md 2.3): times are local and labelled,
    as ``date``, condor_q and condor_userprio show them; JSON carries epoch seconds.
    Only a layout copied byte for byte from a real tool keeps that tool's unlabelled
    form (``sge qstat``'s submit/start column)."""
    tm = time.localtime(epoch)
    return f"{time.strftime(fmt, tm)} {time.strftime('%Z', tm)}"


def zone_name(epoch: float) -> str:
    """The local zone's abbreviation at ``epoch`` (``UTC``, ``CEST``)."""
    return time.strftime("%Z", time.localtime(epoch))


def stdout_console() -> Console:
    """A console for human output; rich itself honours NO_COLOR and non-terminals."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


#: Control characters other than newline and tab: shown escaped, never sent as they are
#: (a name from an ad could hold an escape sequence for the reader's terminal).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """``text`` with every control character but newline and tab written as
    ``\\xNN`` (an ESC shows as ``\\x1b``)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def print_text(console: Console, text: str) -> None:
    """``console.print(text, markup=False, highlight=False)`` for a console made by
    ``stdout_console``/``stderr_console``: the same characters, much faster when the
    console is not a terminal.

    rich then writes ``text`` and a newline after two changes: emoji codes (``:smile:``)
    become emoji (``rich.emoji.Emoji.replace``) and the control codes it strips (bell,
    backspace, vertical tab, form feed, carriage return; ``rich.control``) are dropped;
    tabs would be expanded, so a text with a tab goes through rich. Its renderer costs
    about 20 us per line, most of a second for the 42,000 match lines of a 10,000-slot
    cycle. A terminal always gets rich's own rendering.
    """
    text = visible(text)
    if console.is_terminal or "\t" in text:
        console.print(text, markup=False, highlight=False)
        return
    from rich.control import strip_control_codes
    from rich.emoji import Emoji

    out = console.file
    out.write(strip_control_codes(Emoji.replace(text)) + "\n")
    out.flush()


def envelope(command: str, data: Any, errors: list[dict[str, Any]],
             safe: bool = True) -> dict[str, Any]:
    """The JSON document; keys starting with "_" are human-only and left out.
    ``safe=False`` leaves ``data`` as it is (``print_json`` makes it safe only when
    the encoder meets a non-finite number)."""
    errors = [{k: v for k, v in e.items() if not k.startswith("_")} for e in errors]
    return {
        "schema_version": SCHEMA_VERSION,
        "command": command,
        "status": "error" if errors else "ok",
        "data": jsontext.json_safe(data) if safe else data,
        "errors": errors,
    }


def _dumps(doc: dict[str, Any]) -> str:
    """``json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))``,
    by orjson when that gives the same text (``jsontext``)."""
    return jsontext.dumps(doc)


def print_json(doc: dict[str, Any]) -> None:
    """The document on one line. Indented output would go through the json module's
    pure-Python encoder, ten times slower on a cycle's tens of thousands of matches;
    ``jq .`` indents it for a person. The encoder refuses non-finite numbers
    (``allow_nan=False``): only then is the data walked to make them null, so a
    document without any is not walked twice. What orjson writes (``jsontext``) goes
    out as its UTF-8 bytes, a piece at a time (``jsontext.write_utf8``: a large
    cycle's matches are never one text), the rest as text through ``sys.stdout``."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        # JSON is UTF-8 (RFC 8259): the bytes go straight to the byte layer, after
        # whatever the text layer holds
        sys.stdout.flush()
        if jsontext.write_utf8(doc, buffer.write):
            buffer.write(b"\n")
            buffer.flush()
            return
        fast = None  # (nothing was written)
    else:
        fast = jsontext.fast_utf8(doc)
    if fast is not None:
        text = fast.decode()
    else:  # only json can write it (orjson was asked once already)
        try:
            text = jsontext.json_text(doc)
        except ValueError:
            text = _dumps({**doc, "data": jsontext.json_safe(doc["data"])})
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def render(result: Result, as_json: bool) -> None:
    if _retained is not None:
        _retained.append(result)
    if as_json:
        print_json(envelope(result.command, result.data, result.errors, safe=False))
        return
    if result.human is not None:
        result.human(stdout_console())
    # An error entry may carry a human-only "detail" (e.g. the source line and a caret).
    err_console = stderr_console()
    for err in result.errors:
        err_console.print(f"condorlite {result.command}: {err['message']}", markup=False)
        if err.get("_detail"):
            err_console.print(err["_detail"], markup=False)
