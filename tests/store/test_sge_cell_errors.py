"""The cell reader refuses what it cannot read with file and line, and never expands
XML entities."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from condorlite.errors import DataError, InputMissingError
from condorlite.store.sge_cell import read_cell
from tests.sge.recorded import DATA

SOURCE = DATA / "o5_all" / "t0_share_true"


@pytest.fixture
def cell(tmp_path: Path) -> Path:
    target = tmp_path / "cell"
    shutil.copytree(SOURCE, target)
    return target


def test_reads_a_recorded_cell(cell: Path) -> None:
    dump = read_cell(cell)
    assert len(dump.jobs) == 11
    assert dump.usersets["dept_a"].oticket == 60000 and dump.usersets["dept_a"].is_department
    assert dump.sched_conf.policy_hierarchy == "OFS"


def test_bad_number_names_file_and_line(cell: Path) -> None:
    text = (cell / "sched_conf").read_text().replace("weight_user ", "weight_user abc #", 1)
    (cell / "sched_conf").write_text(text)
    with pytest.raises(DataError, match=r"sched_conf:\d+: weight_user: expected a number"):
        read_cell(cell)


def test_unknown_key_is_a_warning(cell: Path) -> None:
    with (cell / "sched_conf").open("a") as f:
        f.write("brand_new_knob 7\n")
    dump = read_cell(cell)
    assert any("brand_new_knob" in w for w in dump.warnings)


def test_missing_required_file(cell: Path) -> None:
    (cell / "complexes").unlink()
    with pytest.raises(InputMissingError, match="qconf -sc"):
        read_cell(cell)


def test_broken_share_tree_reference(cell: Path) -> None:
    (cell / "share_tree").write_text("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=7\n")
    with pytest.raises(DataError, match=r"share_tree:5: node 0 \(Root\): child 7 does not exist"):
        read_cell(cell)


def test_entity_expansion_is_refused(cell: Path) -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><l>&b;</l>'
    )
    (cell / "jobs.xml").write_text(bomb)
    with pytest.raises(DataError, match="document type"):
        read_cell(cell)


def test_not_qstat_xml_is_refused(cell: Path) -> None:
    (cell / "jobs.xml").write_text("<?xml version='1.0'?>\n<a><b></a>\n")
    with pytest.raises(DataError, match=r"jobs.xml:1: expected <detailed_job_info>"):
        read_cell(cell)
