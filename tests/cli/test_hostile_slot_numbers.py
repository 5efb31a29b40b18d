"""A slot's own number that is a deep expression (issue 17's hostile input, found in
session 36): the default post-job rank reads ``KFlops``, and the residual made for
the slot literals' types is compiled as Python source, which Python's compiler
refuses past ~100 nested parentheses. The cycle must decide as if the number were
written out, not stop with an internal error."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from condorlite.cli import app

ROOT = Path(__file__).resolve().parents[2]
DEPTH = 150


def _pool(tmp_path: Path, name: str, kflops: str) -> Path:
    """The example's slots with a copy of general.ads' first slot whose KFlops is
    ``kflops`` (its Mips the copied slot's)."""
    slots = tmp_path / name
    shutil.copytree(ROOT / "examples" / "slots", slots)
    general = slots / "general.ads"
    first = general.read_text().split("\n\n")[0]
    twin = re.sub(r"(?m)^KFlops = .*$", f"KFlops = {kflops}", first)
    twin = re.sub(r'(?m)^Name = "([^"]*)"', r'Name = "deep\1"', twin)
    assert twin != first
    general.write_text(general.read_text().rstrip("\n") + "\n\n" + twin + "\n")
    return slots


def _matches(tmp_path: Path, slots: Path) -> list:
    done = CliRunner().invoke(app, [
        "negotiate", "--config", str(ROOT / "examples" / "condorlite.toml"),
        "--slots", str(slots), "--jobs", str(ROOT / "examples" / "jobs"),
        "--state-dir", str(tmp_path / f"state-{slots.name}"), "--now", "1760000000",
        "--json"])
    assert done.exit_code == 0, done.output[-2000:]
    return json.loads(done.stdout)["data"]["matches"]


def test_a_slot_number_nested_past_pythons_compiler_decides_as_written_out(
        tmp_path: Path) -> None:
    first = (ROOT / "examples" / "slots" / "general.ads").read_text().split("\n\n")[0]
    mips = int(re.search(r"(?m)^Mips = (\d+)$", first).group(1))  # type: ignore[union-attr]
    deep = "(" * DEPTH + "Mips" + " + Mips)" * DEPTH
    nested = _matches(tmp_path, _pool(tmp_path, "nested", deep))
    flat = _matches(tmp_path, _pool(tmp_path, "flat", str(mips * (DEPTH + 1))))
    assert nested == flat
    assert len(nested) >= 48
