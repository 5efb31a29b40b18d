"""With --json, even Typer's argument errors come out as the one JSON envelope."""

from __future__ import annotations

import json
import subprocess
import sys


def run(*args: str):
    return subprocess.run(
        [sys.executable, "-m", "condorlite", *args],
        capture_output=True, text=True, timeout=60,
    )


def test_bad_option_value_with_json_is_an_envelope_and_exit_2(tmp_path):
    proc = run("userprio", "--json", "--state-dir", str(tmp_path), "--now", "yesterday")
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    assert doc["schema_version"] == 1 and doc["command"] == "userprio"
    assert doc["status"] == "error" and doc["data"] is None
    assert doc["errors"][0]["kind"] == "usage"
    assert "--now" in doc["errors"][0]["message"]


def test_unknown_command_with_json(tmp_path):
    proc = run("frobnicate", "--json")
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["errors"][0]["message"] == "No such command 'frobnicate'."


def test_without_json_typer_reports_usage_errors_on_stderr():
    proc = run("userprio", "--now", "yesterday")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "--now" in proc.stderr


def test_json_success_still_exits_0(tmp_path):
    proc = run("eval", "--json", "1 + 1")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["data"]["results"][0]["value"] == 2
