"""HTCondor's one-dash spellings get condorlite's in the answer (issue 20): Click
would read ``-allusers`` as ``-a`` and say "No such option: -a"."""

from __future__ import annotations

import json
import os
import subprocess
import sys

ENV = {**os.environ, "NO_COLOR": "1"}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "condorlite", *args], capture_output=True,
                          text=True, env=ENV, timeout=120)


def test_a_one_dash_long_option_names_the_two_dash_one(tmp_path) -> None:
    done = _run("userprio", "-allusers", "--state-dir", str(tmp_path))
    assert done.returncode == 2
    assert "--allusers" in done.stderr and "No such option" not in done.stderr


def test_a_condor_userprio_verb_names_the_command(tmp_path) -> None:
    done = _run("userprio", "-setfactor", "alice@x.org", "5", "--state-dir", str(tmp_path))
    assert done.returncode == 2 and "condorlite setfactor" in done.stderr
    done = _run("-setfactor", "alice@x.org", "5")
    assert done.returncode == 2 and "condorlite setfactor" in done.stderr


def test_json_gets_the_envelope_and_numbers_stay_arguments(tmp_path) -> None:
    done = _run("userprio", "-allusers", "--json", "--state-dir", str(tmp_path))
    assert done.returncode == 2
    assert "--allusers" in json.loads(done.stdout)["errors"][0]["message"]
    negative = _run("setprio", "a@x.org", "-500", "--state-dir", str(tmp_path),
                    "--now", "1760000000")
    assert negative.returncode == 2 and "spells" not in negative.stderr  # not a spelling


def test_a_new_name_differing_only_in_case_is_warned_about(tmp_path) -> None:
    """``setfactor Alice@example.org`` beside ``alice@example.org`` makes a second
    record (names are case-sensitive, as HTCondor's are): say so (issue 20)."""
    base = ("--state-dir", str(tmp_path), "--now", "1760000000")
    assert _run("setfactor", "alice@example.org", "2", *base).returncode == 0
    twin = _run("setfactor", "Alice@example.org", "3", *base, "--json")
    assert twin.returncode == 0
    assert "differs only in case" in twin.stderr and "alice@example.org" in twin.stderr
    assert json.loads(twin.stdout)["data"]["similar_names"] == ["alice@example.org"]
    again = _run("setfactor", "Alice@example.org", "4", *base)
    assert again.returncode == 0 and "case" not in again.stderr  # it exists now
