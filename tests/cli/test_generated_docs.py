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
