"""The man page and completions are generated from the app and must not drift."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from condorlite.cli import app
from condorlite.cli._generate import ROOT, describe, generated_files


@pytest.mark.parametrize("rel", sorted(generated_files(app), key=str), ids=str)
def test_generated_file_is_current(rel):
    expected = generated_files(app)[rel]
    path = ROOT / rel
    assert path.exists(), f"{rel} missing: run python -m condorlite.cli._generate --write"
    assert path.read_text(encoding="utf-8") == expected, (
        f"{rel} drifted from the app: run python -m condorlite.cli._generate --write"
    )


def test_every_command_and_option_is_in_the_man_page():
    man = (ROOT / "man/condorlite.1").read_text(encoding="utf-8")
    for cmd in describe(app):
        assert f".SS condorlite {cmd.name}" in man
        for opt in cmd.options:
            assert opt.names[0].replace("-", "\\-") in man


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_bash_completion_is_valid_bash():
    path = ROOT / "completions/condorlite.bash"
    subprocess.run(["bash", "-n", str(path)], check=True)


def test_bash_completes_record_names_from_the_state(tmp_path):
    """The generated bash completion offers the accountant's record names for an edit's
    NAME and for --recover, from the --state-dir on the line."""
    import os
    import sys
    from pathlib import Path

    from typer.testing import CliRunner

    if shutil.which("bash") is None:
        pytest.skip("no bash")
    sd = tmp_path / "s"
    for name in ("alice@example.org", "albert@example.org", "bob@example.org"):
        done = CliRunner().invoke(app, ["setfactor", name, "5", "--state-dir", str(sd),
                                        "--now", "1760000000"])
        assert done.exit_code == 0, done.output
    script = ROOT / "completions" / "condorlite.bash"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}

    def complete(cword: int, *words: str) -> list[str]:
        line = " ".join(["condorlite", *words])
        probe = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={cword}; "
                 f"_condorlite; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        out = subprocess.run(["bash", "-c", probe], env=env, capture_output=True, text=True,
                             check=True).stdout
        return sorted(x for x in out.splitlines() if x)

    assert complete(2, "setfactor", "al", "--state-dir", str(sd)) == [
        "albert@example.org", "alice@example.org"]
    assert complete(5, "userprio", "--state-dir", str(sd), "--recover", "b") == [
        "bob@example.org"]
