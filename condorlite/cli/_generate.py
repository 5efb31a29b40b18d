"""Generate the man page and the shell completion scripts from the Typer app.

The committed files under ``man/`` and ``completions/`` are this module's output; a test
regenerates them and fails when they drift from the app. Regenerate after changing a
command or an option::

    python -m condorlite.cli._generate --write

The completions are static (they list commands and options; arguments that name files
complete as files), so they need no call back into condorlite at tab time.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import typing
from dataclasses import dataclass
from pathlib import Path

from typer.main import get_command

from condorlite import __version__

ROOT = Path(__file__).resolve().parents[2]

#: Exit codes as the man page lists them (DESIGN.md 2.4; values in condorlite.errors).
EXIT_CODES = (
    (0, "success"),
    (1, "a domain failure: the request is well formed but cannot be done "
        "(e.g. an edit names an unknown submitter)"),
    (2, "a usage error: a bad or missing argument"),
    (65, "bad input data: an unparsable ad, expression or state database"),
    (66, "an input file is missing or unreadable, or a reading command found no state"),
    (70, "an internal error (a bug; CONDORLITE_DEBUG=1 shows the traceback)"),
    (73, "the state directory cannot be written"),
    (74, "the output cannot be written (a full disk, an I/O error); 141 when the reader "
         "of a pipe went away"),
    (75, "the state is locked by another writer; try again"),
    (78, "bad configuration in condorlite.toml"),
)


@dataclass(frozen=True)
class OptionDoc:
    names: tuple[str, ...]
    takes_value: bool
    is_path: bool
    help: str


@dataclass(frozen=True)
class CommandDoc:
    name: str
    help: str
    usage: str
    options: tuple[OptionDoc, ...]
    arguments: tuple[str, ...]


def _is_path(param) -> bool:
    """Whether an option names a file or directory: Click's path type, named "path",
    "file" or "directory" (Typer 0.26 to 0.28), or a ``Path`` annotation (Typer 0.29
    keeps it in ``type_descriptor``)."""
    if getattr(getattr(param, "type", None), "name", None) in ("path", "file", "directory"):
        return True
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    candidates = (annotation, *typing.get_args(annotation))
    return any(isinstance(c, type) and issubclass(c, Path) for c in candidates)


def _argument_usage(param) -> str:
    """An argument as a synopsis shows it: ``NAME``, ``[NAME]`` when optional,
    ``NAME...`` or ``[NAME]...`` when it takes several."""
    word = (param.metavar or param.name).upper()
    word = word.strip("[]{}").rstrip(".")
    if param.nargs == -1:
        return f"{word}..." if param.required else f"[{word}]..."
    return word if param.required else f"[{word}]"


def _command_doc(name: str, command, params) -> CommandDoc:
    options, arguments = [], []
    seen: set[tuple[str, ...]] = set()
    for param in params:
        if param.param_type_name == "argument":
            arguments.append(_argument_usage(param))
            continue
        names = tuple(param.opts) + tuple(param.secondary_opts)
        if names in seen:
            continue
        seen.add(names)
        options.append(
            OptionDoc(
                names=names,
                takes_value=not param.is_flag,
                is_path=_is_path(param),
                help=" ".join((param.help or "").split()),
            )
        )
    options.append(OptionDoc(("--help", "-h"), False, False, "Show the command's help."))
    usage = " ".join(["condorlite", name, "[OPTIONS]", *arguments])
    help_text = inspect.cleandoc(command.help or "")
    return CommandDoc(name, help_text, usage, tuple(options), tuple(arguments))


def describe(app, nested: bool = True) -> list[CommandDoc]:
    """Every command of the app, in registration order, with its options. A command
    group (``sge``) gives one entry per subcommand (``sge qstat``) when ``nested``, else
    one entry with every subcommand's options (what static completions can offer)."""
    group = get_command(app)
    docs = []
    for name, command in group.commands.items():
        subcommands = getattr(command, "commands", None)
        if subcommands and nested:
            for sub, subcommand in subcommands.items():
                docs.append(_command_doc(f"{name} {sub}", subcommand, subcommand.params))
        elif subcommands:
            params = [p for c in subcommands.values() for p in c.params
                      if p.param_type_name != "argument"]
            docs.append(_command_doc(name, command, params))
        else:
            docs.append(_command_doc(name, command, command.params))
    return docs


def _roff(text: str) -> str:
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line
                     for line in text.splitlines())


def man_page(app) -> str:
    """condorlite(1) in roff (man macros)."""
    out = [
        f'.TH CONDORLITE 1 "" "condorlite {__version__}" "User Commands"',
        ".SH NAME",
        "condorlite \\- HTCondor\\-compatible fair\\-share accounting, ClassAd evaluation "
        "and matchmaking",
        ".SH SYNOPSIS",
        ".B condorlite",
        "\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]...",
        ".SH DESCRIPTION",
        _roff(
            "condorlite does, on one machine and from a local state directory, what "
            "HTCondor's negotiator, accountant and condor_userprio do for a pool. Every "
            "command prints text for a person, or with --json exactly one JSON document "
            '{"schema_version", "command", "status", "data", "errors"} for a script.'
        ),
        ".SH COMMANDS",
    ]
    for cmd in describe(app):
        out += [".SS " + _roff(cmd.usage), _roff(cmd.help or cmd.name)]
        for opt in cmd.options:
            out += [".TP", "\\fB" + _roff(", ".join(opt.names)) + "\\fR"
                    + (" \\fIVALUE\\fR" if opt.takes_value else ""), _roff(opt.help or "")]
    out += [".SH EXIT STATUS"]
    for code, meaning in EXIT_CODES:
        out += [".TP", f".B {code}", _roff(meaning)]
    out += [
        ".SH ENVIRONMENT",
        ".TP", ".B CONDORLITE_STATE_DIR", _roff("State directory when --state-dir is not given."),
        ".TP", ".B CONDORLITE_CONFIG", _roff("Policy file when --config is not given."),
        ".TP", ".B CONDORLITE_NOW",
        _roff("The time (epoch seconds or ISO 8601) when --now is not given."),
        ".TP", ".B CONDORLITE_LOCK_TIMEOUT",
        _roff("Seconds to wait for the state when --lock-timeout is not given."),
        ".TP", ".B CONDORLITE_DEBUG", _roff("Show a traceback on internal errors."),
        ".TP", ".B CONDORLITE_PURE_PYTHON",
        _roff("When set to a non-empty value, read old-form and JSON ad files and key the "
              "reading pass's checks in Python even where the compiled module was built "
              "(the same ads, errors and results, several times slower; for comparing "
              "the two)."),
        ".TP", ".B NO_COLOR", _roff("Plain human output even on a terminal."),
        ".SH FILES",
        ".TP", ".I STATE_DIR/condorlite.toml",
        _roff("Policy, with HTCondor's knob names; written with commented defaults on first use."),
        ".TP", ".I STATE_DIR/state.db",
        _roff("SQLite: accountant records, claims, and one history row per cycle and edit."),
        ".SH SEE ALSO",
        "condor_userprio(1), condor_negotiator(1), condor_status(1), classad_eval(1)",
    ]
    return "\n".join(out) + "\n"


def _words(names) -> str:
    return " ".join(sorted(names))


#: Commands whose first argument names an accountant record, and options whose value
#: does: the completions offer the record names (``userprio --complete-names``).
NAME_COMMANDS = frozenset({"setprio", "setfactor", "setaccum", "setbegin", "setlast",
                           "setceiling", "setfloor", "resetusage", "delete", "userprio"})
NAME_OPTIONS = frozenset({"--recover", "--submitter"})

_BASH_NAMES = [
    "_condorlite_names() {",
    "    local i sd=()",
    "    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do",
    '        [ "${COMP_WORDS[i]}" = --state-dir ] && sd=(--state-dir "${COMP_WORDS[i+1]}")',
    "    done",
    '    condorlite userprio --complete-names "${sd[@]}" 2>/dev/null',
    "}",
]


def bash_completion(app) -> str:
    cmds = describe(app, nested=False)
    lines = [
        "# bash completion for condorlite; generated by condorlite.cli._generate",
        *_BASH_NAMES,
        "_condorlite() {",
        "    local cur prev cmd",
        '    cur="${COMP_WORDS[COMP_CWORD]}"',
        '    prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    cmd="${COMP_WORDS[1]}"',
        "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
        f'        COMPREPLY=($(compgen -W "{_words(c.name for c in cmds)} --help --version"'
        ' -- "$cur"))',
        "        return",
        "    fi",
        '    case "$cmd" in',
    ]
    for cmd in cmds:
        opts = [n for o in cmd.options for n in o.names]
        path_opts = [n for o in cmd.options if o.is_path for n in o.names]
        lines.append(f"    {cmd.name})")
        if path_opts:
            lines += [
                f'        case "$prev" in {"|".join(sorted(path_opts))})',
                '            COMPREPLY=($(compgen -f -- "$cur")); return;;',
                "        esac",
            ]
        name_opts = sorted(NAME_OPTIONS & set(opts))
        if name_opts:
            lines += [
                f'        case "$prev" in {"|".join(name_opts)})',
                '            COMPREPLY=($(compgen -W "$(_condorlite_names)" -- "$cur")); return;;',
                "        esac",
            ]
        if cmd.name in NAME_COMMANDS:
            lines += [
                '        if [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then',
                '            COMPREPLY=($(compgen -W "$(_condorlite_names)" -- "$cur")); return',
                "        fi",
            ]
        lines += [
            '        if [[ "$cur" == -* ]]; then',
            f'            COMPREPLY=($(compgen -W "{_words(opts)}" -- "$cur"))',
            "        else",
            '            COMPREPLY=($(compgen -f -- "$cur"))',
            "        fi",
            "        ;;",
        ]
    lines += ["    esac", "}", "complete -F _condorlite condorlite"]
    return "\n".join(lines) + "\n"


def _zsh_escape(text: str) -> str:
    return text.replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def zsh_completion(app) -> str:
    cmds = describe(app, nested=False)
    lines = ["#compdef condorlite", "# generated by condorlite.cli._generate",
             "_condorlite_names() {",
             "    local -a names sd",
             "    local i=${words[(i)--state-dir]}",
             "    (( i < ${#words} )) && sd=(--state-dir ${words[i+1]})",
             "    names=(${(f)\"$(condorlite userprio --complete-names $sd 2>/dev/null)\"})",
             "    compadd -a names",
             "}",
             "_condorlite() {",
             "    local -a commands", "    commands=("]
    for cmd in cmds:
        summary = (cmd.help.splitlines() or [cmd.name])[0]
        lines.append(f"        '{cmd.name}:{_zsh_escape(summary)}'")
    lines += ["    )", "    if (( CURRENT == 2 )); then",
              "        _describe 'command' commands", "        return", "    fi",
              "    case \"${words[2]}\" in"]
    for cmd in cmds:
        lines.append(f"    {cmd.name})")
        specs = []
        for opt in cmd.options:
            action = ":value:_files" if opt.is_path else (
                ":name:_condorlite_names" if set(opt.names) & NAME_OPTIONS
                else ":value:" if opt.takes_value else "")
            for name in opt.names:
                specs.append(f"'{name}[{_zsh_escape(opt.help)}]{action}'")
        if cmd.name in NAME_COMMANDS:
            specs.append("'1:name:_condorlite_names'")
        specs.append("'*:file:_files'")
        lines.append("        _arguments " + " \\\n            ".join(specs))
        lines.append("        ;;")
    lines += ["    esac", "}", '_condorlite "$@"']
    return "\n".join(lines) + "\n"


def fish_completion(app) -> str:
    cmds = describe(app, nested=False)
    names = _words(c.name for c in cmds)
    lines = ["# fish completion for condorlite; generated by condorlite.cli._generate",
             "complete -c condorlite -f"]
    for cmd in cmds:
        summary = (cmd.help.splitlines() or [cmd.name])[0].replace("'", "\\'")
        lines.append(f"complete -c condorlite -n 'not __fish_seen_subcommand_from {names}' "
                     f"-a {cmd.name} -d '{summary}'")
        for opt in cmd.options:
            parts = [f"complete -c condorlite -n '__fish_seen_subcommand_from {cmd.name}'"]
            for name in opt.names:
                parts.append(f"-l {name[2:]}" if name.startswith("--") else f"-s {name[1:]}")
            if opt.takes_value:
                parts.append("-r -F" if opt.is_path else "-r")
                if set(opt.names) & NAME_OPTIONS:
                    parts.append("-a '(condorlite userprio --complete-names 2>/dev/null)'")
            parts.append("-d '" + opt.help.replace("'", "\\'") + "'")
            lines.append(" ".join(parts))
        if cmd.name in NAME_COMMANDS:
            lines.append(f"complete -c condorlite -n '__fish_seen_subcommand_from {cmd.name}' "
                         "-a '(condorlite userprio --complete-names 2>/dev/null)'")
    return "\n".join(lines) + "\n"


def generated_files(app) -> dict[Path, str]:
    """Relative path -> content of every generated file."""
    return {
        Path("man/condorlite.1"): man_page(app),
        Path("completions/condorlite.bash"): bash_completion(app),
        Path("completions/_condorlite"): zsh_completion(app),
        Path("completions/condorlite.fish"): fish_completion(app),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the files (else check)")
    args = parser.parse_args(argv)
    from condorlite.cli import app

    stale = []
    for rel, content in generated_files(app).items():
        path = ROOT / rel
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        elif not path.exists() or path.read_text(encoding="utf-8") != content:
            stale.append(str(rel))
    if stale:
        print("out of date: " + ", ".join(stale) + " (run python -m condorlite.cli._generate "
              "--write)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
