"""The console-script entry point: one command's module loaded alone, the process ended
without the interpreter's teardown, and rendered results retained only there."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import condorlite.cli as cli
from condorlite.cli import render
from condorlite.cli.render import Result

ENV = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}


def run(*args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    head = ["-c", code] if code is not None else ["-m", "condorlite"]
    return subprocess.run([sys.executable, *head, *args], capture_output=True, text=True,
                          timeout=120, env=ENV)


def _names(app) -> set[str]:
    commands = {info.name or info.callback.__name__ for info in app.registered_commands}
    return commands | {info.name for info in app.registered_groups}


def test_each_listed_command_is_registered_by_its_module_alone():
    for command, module in cli.COMMAND_MODULE_OF.items():
        assert command in _names(cli.build_app((module,))), (command, module)
    whole = _names(cli.build_app())
    assert set(cli.COMMAND_MODULE_OF) <= whole
    # Commands not listed (the edit ones) load the whole app, which has them all.
    assert whole == set().union(*(_names(cli.build_app((m,))) for m in cli.COMMAND_MODULES))


def test_the_package_attribute_app_is_the_whole_app():
    assert _names(cli.app) == _names(cli.build_app())
    with pytest.raises(AttributeError):
        cli.no_such_attribute  # noqa: B018


WHOLE_APP = "import sys; from condorlite.cli import app; app(prog_name='condorlite')"


@pytest.mark.parametrize("args", [
    ("negotiate", "--help"), ("status", "-h"), ("eval", "--help"), ("import", "--help"),
    ("negotiate", "--bogus"), ("userprio", "--now", "yesterday"), ("setprio", "--help"),
    ("--help",), ("frobnicate",),
])
def test_a_command_loaded_alone_answers_as_the_whole_app(args):
    alone, whole = run(*args), run(*args, code=WHOLE_APP)
    assert (alone.returncode, alone.stdout, alone.stderr) == (
        whole.returncode, whole.stdout, whole.stderr)
    assert alone.stdout or alone.stderr


def test_json_runs_exit_with_their_code_and_flush_the_document(tmp_path):
    ok = run("eval", "1 + 2", "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["status"] == "ok"
    bad = run("eval", "1 +", "--json")
    assert bad.returncode == 65 and json.loads(bad.stdout)["status"] == "error"
    usage = run("negotiate", "--bogus", "--json")
    assert usage.returncode == 2 and json.loads(usage.stdout)["errors"][0]["kind"] == "usage"
    missing = run("negotiate", "--slots", str(tmp_path / "none.ads"), "--jobs",
                  str(tmp_path / "none.ads"), "--state-dir", str(tmp_path / "s"), "--json")
    assert missing.returncode == 66
    assert json.loads(missing.stdout)["errors"][0]["kind"] == "input_missing"
    assert run("--version").stdout.startswith("condorlite ")


@pytest.mark.parametrize(("code", "status", "err"), [
    ("None", 0, ""), ("0", 0, ""), ("3", 3, ""), ("-1", 255, ""), ("'bye'", 1, "bye\n"),
])
def test_exit_now_exits_as_system_exit_would(code, status, err):
    proc = run(code=("import sys; from condorlite.cli import _exit_now; "
                     f"sys.stdout.write('out'); sys.stderr.write('e'); _exit_now({code})"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (status, "out", "e" + err)


def test_results_are_retained_only_once_asked(monkeypatch, capsys):
    monkeypatch.setattr(render, "_retained", None)
    render.render(Result("x", {"a": 1}), as_json=True)
    assert render._retained is None
    render.retain_results()
    kept = Result("x", {"a": 2}, sources=(object(),))
    render.render(kept, as_json=True)
    assert render._retained == [kept]
    assert capsys.readouterr().out.splitlines()[-1].endswith('"data":{"a":2},"errors":[]}')
