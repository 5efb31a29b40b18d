"""The Grid Engine cell generator: deterministic, the recorded formats, read back whole."""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.benchmarks._load import load

gensge = load("gensge")

SPEC = gensge.CellSpec(jobs=50, users=12, projects=4, seed=3, running=0.1)
FILES = ("sched_conf", "complexes", "users", "projects", "usersets", "pes", "share_tree",
         "share_mon", "jobs.xml", "now", "hosts", "queues", "global_conf", "running.xml",
         "queue_instances.xml")


@pytest.fixture(scope="module")
def cell_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cell")
    gensge.write_cell(SPEC, out)
    return out


def test_layout_and_determinism(cell_dir: Path, tmp_path: Path) -> None:
    for name in FILES:
        assert (cell_dir / name).is_file(), name
    gensge.write_cell(SPEC, tmp_path / "again")
    gensge.write_cell(gensge.CellSpec(**{**SPEC.__dict__, "seed": 4}), tmp_path / "other")
    for name in FILES:
        assert (cell_dir / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
    assert (cell_dir / "jobs.xml").read_bytes() != (tmp_path / "other" / "jobs.xml").read_bytes()


def test_jobs_xml_is_qstat_shaped(cell_dir: Path) -> None:
    root = ET.parse(cell_dir / "jobs.xml").getroot()
    jobs = root.findall("djob_info/element")
    assert len(jobs) == 50
    numbers = [int(j.findtext("JB_job_number")) for j in jobs]
    assert numbers == sorted(set(numbers))
    times = [int(j.findtext("JB_submission_time")) for j in jobs]
    assert times == sorted(times) and times[-1] < SPEC.now
    assert any(j.find("JB_ja_tasks") is not None for j in jobs)
    for j in jobs:
        assert j.findtext("JB_ja_structure/task_id_range/RN_min") == "1"
        for t in j.findall("JB_ja_tasks/ulong_sublist"):
            assert t.findtext("JAT_status") == "128"
            assert int(t.findtext("JAT_start_time")) <= SPEC.now
    # the element order of a recorded job (tests/data/sge), less the optional elements
    recorded = next(Path(gensge.RECORDING).glob("jobs.xml"))
    first = ET.parse(recorded).getroot().find("djob_info/element")
    order = [e.tag for e in first]
    for j in jobs:
        tags = [e.tag for e in j if e.tag in order]
        assert tags == [t for t in order if t in tags]


def test_share_tree_three_levels_and_usage(cell_dir: Path) -> None:
    text = (cell_dir / "share_tree").read_text().split("id=")[1:]
    nodes = {int(b.split("\n")[0]): dict(x.split("=", 1) for x in b.strip().split("\n")[1:])
             for b in text}
    root = nodes[0]
    kids = [int(c) for c in root["childnodes"].split(",")]
    assert [nodes[k]["name"] for k in kids][-1] == "default"
    projects = [k for k in kids if nodes[k]["type"] == "1"]
    assert len(projects) == SPEC.projects
    assert any(nodes[k]["childnodes"] != "NONE" for k in projects)
    assert list(nodes) == sorted(nodes)  # depth first, as qconf -Astree wants
    rows = [dict(c.split("=", 1) for c in ln.split("\t") if "=" in c)
            for ln in (cell_dir / "share_mon").read_text().splitlines() if "=" in ln]
    usage = {r["node_name"]: float(r["usage"]) for r in rows}
    assert usage["/"] > 0
    assert sum(v for k, v in usage.items() if k.count("/") == 1 and k != "/") == \
        pytest.approx(usage["/"])


def _read_cell():
    if importlib.util.find_spec("condorlite.store.sge_cell") is None:
        pytest.skip("condorlite.store.sge_cell (read_cell) does not exist yet")
    from condorlite.store.sge_cell import read_cell

    return read_cell


def test_read_cell_and_prioritise_every_job(cell_dir: Path) -> None:
    read_cell = _read_cell()
    from condorlite.core.sge.priority import prioritise

    cell = read_cell(cell_dir)
    assert len(cell.jobs) == 50
    assert not [w for w in cell.warnings if "missing" in w], cell.warnings
    root = ET.parse(cell_dir / "jobs.xml").getroot()
    submitted = sum(len(range(int(r.findtext("RN_min")), int(r.findtext("RN_max")) + 1,
                              int(r.findtext("RN_step"))))
                    for r in root.iter("task_id_range"))
    assert sum(len(j.tasks) for j in cell.jobs) == submitted
    assert cell.share_tree is not None and cell.share_usage
    assert len(cell.users) == SPEC.users and len(cell.projects) == SPEC.projects
    assert len(cell.departments) >= 2
    result = prioritise(cell, cell.now or SPEC.now)
    assert {r.job.number for r in result.jobs} == {j.number for j in cell.jobs}
    assert any(r.running for r in result.jobs)
    assert any(r.stckt > 0 for r in result.jobs)
    assert any(r.ftckt > 0 for r in result.jobs)
