"""Names from ads are data, not terminal input (issue 17, item 4): a job whose
submitter name holds control characters is that job's problem, an edit or import of
such a name is refused, a record that holds one can still be deleted, and no control
character reaches the output as it is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.core.accounting import AccountantState, Record
from condorlite.store.db import open_state

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "evil\x1b[2J\x1b]0;owned\x07\ngroup_fake.row@x.org"


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_a_hostile_job_is_a_problem_and_the_cycle_goes_on(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs"
    shutil.copytree(ROOT / "examples" / "jobs", jobs)
    idle = [ad for f in sorted(jobs.iterdir()) for ad in f.read_text().split("\n\n")
            if "JobStatus = 1" in ad]
    hostile = idle[0] + '\nAccountingGroup = "evil\x1b[2J\\nfake@x"\n'
    (jobs / "zz_hostile.ad").write_text(hostile.replace("ClusterId = ", "ClusterId = 9"))
    base = ["negotiate", "--config", str(ROOT / "examples" / "condorlite.toml"),
            "--slots", str(ROOT / "examples" / "slots"), "--jobs", str(jobs),
            "--now", "1760000000"]
    done = _invoke(*base, "--state-dir", str(tmp_path / "a"), "--json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)["data"]
    assert len(data["matches"]) == 48  # as without the hostile ad
    assert [p["source"].endswith("zz_hostile.ad") for p in data["problems"]] == [True]
    assert "control characters" in data["problems"][0]["problem"]
    text = _invoke(*base, "--state-dir", str(tmp_path / "b"))
    assert text.exit_code == 0 and "\x1b" not in text.output


def test_edits_and_imports_refuse_control_characters(tmp_path: Path) -> None:
    done = _invoke("setfactor", HOSTILE, "5", "--state-dir", str(tmp_path),
                   "--now", "1760000000")
    assert done.exit_code == 2 and "control characters" in done.output
    assert "\x1b" not in done.output
    ads = tmp_path / "prio.ads"
    ads.write_text('Name = "evil\x1b[2J@x.org"\nPriority = 500.0\nPriorityFactor = 1000.0\n')
    done = _invoke("import", str(ads), "--state-dir", str(tmp_path), "--now", "1760000000")
    assert done.exit_code == 65 and "\x1b" not in done.output


def test_a_record_with_such_a_name_can_be_deleted_and_prints_escaped(tmp_path: Path) -> None:
    store = open_state(tmp_path)
    with store.transaction(write=True) as tx:
        tx.save_accountant(AccountantState(1_760_000_000.0, {HOSTILE: Record(HOSTILE)}))
    listed = _invoke("userprio", "--allusers", "--state-dir", str(tmp_path),
                     "--now", "1760000000")
    assert listed.exit_code == 0
    assert "\x1b" not in listed.output and "\\x1b" in listed.output
    deleted = _invoke("delete", HOSTILE, "--state-dir", str(tmp_path), "--now", "1760000000")
    assert deleted.exit_code == 0, deleted.output
    assert "\x1b" not in deleted.output
    with open_state(tmp_path).transaction(write=False) as tx:
        assert HOSTILE not in tx.load_accountant().records
