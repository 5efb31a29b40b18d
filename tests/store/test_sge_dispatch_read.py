"""The dispatch files of a cell dump: hosts, queues (with per-host overrides), queue
instances with their states and resources, running grants; bad lines name file and
line; every file is optional."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from condorlite.errors import DataError
from condorlite.store.sge_cell import read_cell
from tests.sge.recorded import DATA

SOURCE = DATA / "d6_reasons" / "t0"


@pytest.fixture
def cell(tmp_path: Path) -> Path:
    target = tmp_path / "cell"
    shutil.copytree(SOURCE, target)
    return target


def test_reads_hosts_queues_and_instances(cell: Path) -> None:
    dump = read_cell(cell)
    assert dump.hosts["global"].complex_values == (("lic", "4"),)
    vm = dump.hosts["vm"]
    assert vm.processors == 2 and "np_load_avg" in vm.load_values
    assert set(dump.queues) == {"all.q", "q_off"}
    assert dump.queues["all.q"].conf("vm").slots == 2
    assert dump.queues["all.q"].hostlist == ("vm",)
    assert dump.queue_instances["q_off@vm"].state == "d"
    assert dump.queue_instances["all.q@vm"].state == ""
    assert dump.queue_instances["all.q@vm"].resources["lic"] == ("gc", "4")
    assert dump.global_conf["execd_spool_dir"].startswith("/")


def test_per_host_overrides(cell: Path) -> None:
    text = (cell / "queues").read_text()
    text = text.replace("slots                 2", "slots                 1,[vm=3],[other=5]", 1)
    text = text.replace(
        "complex_values        NONE", "complex_values        NONE,[vm=lic=2,mem=1G]", 1
    )
    (cell / "queues").write_text(text)
    queue = read_cell(cell).queues["all.q"]
    assert queue.default.slots == 1
    assert queue.conf("vm").slots == 3 and queue.conf("other").slots == 5
    assert queue.conf("vm").complex_values == (("lic", "2"), ("mem", "1G"))
    assert queue.conf("nowhere").complex_values == ()


def test_bad_override_names_file_and_line(cell: Path) -> None:
    text = (cell / "queues").read_text().replace("slots                 2", "slots 1,[vm=x]", 1)
    (cell / "queues").write_text(text)
    with pytest.raises(DataError, match=r"queues:\d+: slots: expected an integer, found .x."):
        read_cell(cell)


def test_bad_host_value_names_file_and_line(cell: Path) -> None:
    text = (
        (cell / "hosts").read_text().replace("complex_values        lic=4", "complex_values x", 1)
    )
    (cell / "hosts").write_text(text)
    with pytest.raises(DataError, match=r"hosts:\d+: complex_values: expected name=value"):
        read_cell(cell)


def test_bad_xml_value_names_file_and_line(cell: Path) -> None:
    text = (cell / "queue_instances.xml").read_text()
    (cell / "queue_instances.xml").write_text(
        text.replace("<slots_used>0</slots_used>", "<slots_used>two</slots_used>", 1)
    )
    with pytest.raises(DataError, match=r"queue_instances.xml:\d+: slots_used: expected a count"):
        read_cell(cell)


def test_dispatch_files_are_optional(cell: Path) -> None:
    for name in ("hosts", "queues", "queue_resources.xml", "running.xml", "global_conf"):
        (cell / name).unlink()
    dump = read_cell(cell)
    assert dump.hosts == {} and dump.queues == {} and dump.running == ()
    assert dump.queue_instances["all.q@vm"].resources == {}


def test_running_master_and_slave_lines_add_up() -> None:
    dump = read_cell(DATA / "d4_pe" / "t1")
    grants = {(g.job, g.queue_instance): (g.slots, g.master) for g in dump.running}
    assert grants == {(15730, "all.q@vm"): (2, True), (15731, "all.q@vm"): (2, True)}
    assert {g.job: g.prio for g in dump.running} == {15730: 0.505, 15731: 0.60012}
