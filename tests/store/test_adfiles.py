"""Reading ads from files, directories and stdin, in the three formats, and the errors."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest

from condorlite.core.classad.printer import unparse
from condorlite.errors import DataError, InputMissingError, UsageError
from condorlite.store.adfiles import configured_paths, read_ads

DATA = Path(__file__).resolve().parents[1] / "data" / "classad-ads"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _names(loaded) -> list[str]:
    return [item.ad.evaluate("Name") for item in loaded]


def test_old_new_and_json_files() -> None:
    old = read_ads([DATA / "htc-cmd_status-af_orig_first_test.ads"])
    js = read_ads([DATA / "derived-cmd_status-af_orig_first_test.condor_status.json"])
    new = read_ads([DATA / "lsst-group_failed_1.node_status.new.ads"])
    assert len(old) == len(js) == 8
    assert len(new) == 28
    assert _names(old) == _names(js)
    assert [x.index for x in old] == list(range(8))
    assert {x.source for x in old} == {str(DATA / "htc-cmd_status-af_orig_first_test.ads")}
    # the same attributes come back whatever the format
    assert sorted(k.lower() for k in old[0].ad) == sorted(k.lower() for k in js[0].ad)


def test_real_job_ads_old_and_json_agree() -> None:
    (old,) = read_ads([DATA / "htc-pybind-test.old.ad"])
    (js,) = read_ads([DATA / "derived-pybind-test.condor_q.json"])
    assert len(old.ad) == 96
    for attr in ("Owner", "ClusterId", "JobStatus", "QDate", "RequestCpus"):
        assert old.ad.evaluate(attr) == js.ad.evaluate(attr)


def test_a_directory_is_read_in_name_order_and_other_files_are_skipped(tmp_path: Path) -> None:
    shutil.copy(DATA / "htc-statusads-basic4slot.ads", tmp_path / "b.ads")
    shutil.copy(DATA / "htc-statusads-small1slot.ads", tmp_path / "a.ad")
    shutil.copy(DATA / "derived-partitionable8core.condor_status.json", tmp_path / "c.JSON")
    (tmp_path / "notes.txt").write_text("this is not an ad = = =\n")
    (tmp_path / "sub.ads").mkdir()
    loaded = read_ads([tmp_path])
    assert [Path(x.source).name for x in loaded] == ["a.ad"] + ["b.ads"] * 4 + ["c.JSON"] * 5
    assert [x.index for x in loaded] == [0, 0, 1, 2, 3, 0, 1, 2, 3, 4]


def test_paths_keep_their_order_and_stdin_is_read_once() -> None:
    text = (DATA / "htc-pybind-test_multiple.old.ad").read_text()
    loaded = read_ads([DATA / "htc-statusads-small1slot.ads", "-"], stdin=io.StringIO(text))
    assert [x.source for x in loaded] == [str(DATA / "htc-statusads-small1slot.ads"),
                                          "<stdin>", "<stdin>"]
    with pytest.raises(UsageError, match="only once"):
        read_ads(["-", "-"], stdin=io.StringIO(text))


def test_the_example_pool_reads_whole() -> None:
    slots = read_ads([EXAMPLES / "slots"])
    jobs = read_ads([EXAMPLES / "jobs"])
    assert len(slots) == 34
    assert len(jobs) == 62
    assert sum(1 for x in slots if x.source.endswith("arm.json")) == 1


def test_missing_path_is_exit_66_and_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope.ads"
    with pytest.raises(InputMissingError, match=r"nope\.ads: no such file") as err:
        read_ads([DATA / "htc-statusads-small1slot.ads", missing])
    assert err.value.exit_code == 66


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file_is_exit_66(tmp_path: Path) -> None:
    locked = tmp_path / "locked.ads"
    locked.write_text('Name = "x"\n')
    locked.chmod(0)
    with pytest.raises(InputMissingError, match=r"locked\.ads: cannot read"):
        read_ads([locked])


@pytest.mark.parametrize(("text", "line"), [
    ('Name = "slot1"\nCpus = 4\nMemory = (1 +\n', 3),
    ('Name = "a"\n\nName = "b"\nBroken line without equals\n', 4),
    ('[ a = 1; b = ]\n', 1),
    ('[\n{\n  "Name": "x",\n  "Cpus": \n}\n]\n', 5),
])
def test_malformed_ads_are_exit_65_with_file_line_and_column(tmp_path: Path, text: str,
                                                             line: int) -> None:
    bad = tmp_path / "bad.ads"
    bad.write_text(text)
    with pytest.raises(DataError) as err:
        read_ads([bad])
    assert err.value.exit_code == 65
    assert err.value.message.startswith(f"{bad}:{line}:")
    column = err.value.message.split(":")[2]
    assert column.isdigit()


def test_stdin_errors_name_stdin() -> None:
    with pytest.raises(DataError, match=r"^<stdin>:2:"):
        read_ads(["-"], stdin=io.StringIO('Name = "a"\nCpus = = 3\n'))


def test_bytes_that_are_not_utf8_stay_bytes_in_strings(tmp_path: Path) -> None:
    """ClassAd strings are bytes (HTCondor's reader takes any byte in a string): a
    Latin-1 "\xe9" is one byte, printed as its octal escape; outside a string a stray
    byte is a syntax error with its line."""
    latin1 = tmp_path / "latin1.ads"
    latin1.write_bytes(b'Name = "caf\xe9"\nSize = size(Name)\n')
    (ad,) = read_ads([latin1])
    assert ad.ad.evaluate("Size") == 4
    assert unparse(ad.ad.lookup("name")) == '"caf\\351"'
    bad = tmp_path / "name.ads"
    bad.write_bytes(b'Na\xe9me = 1\n')
    with pytest.raises(DataError, match=r"name\.ads:1:"):
        read_ads([bad])


def test_stdin_is_read_as_files_are(tmp_path: Path) -> None:
    """Standard input keeps stray bytes and ends lines at \\n only, as files do."""
    raw = io.BytesIO(b'A = "x\xffy"\nB = "p\rq"\n')
    stream = io.TextIOWrapper(raw, encoding="utf-8")
    (ad,) = read_ads(["-"], stdin=stream)
    assert ad.ad.evaluate("A") == "x\udcffy"
    assert ad.ad.evaluate("B") == "p\rq"


def test_configured_paths_are_relative_to_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "etc" / "condorlite.toml"
    got = configured_paths(["slots", "/abs/jobs", "-"], config)
    assert got == [tmp_path / "etc" / "slots", Path("/abs/jobs"), "-"]


# -- the collector around reading and the LoadedAd records ------------------------------


def test_collector_paused_hands_what_it_made_to_the_oldest_generation():
    import gc

    from condorlite.store.adfiles import collector_paused

    class Node:
        pass

    try:
        gc.enable()
        with collector_paused():
            assert not gc.isenabled()
            kept = [Node() for _ in range(2000)]
            cycle = Node()
            cycle.me = cycle  # garbage once the name is dropped
            del cycle
        assert gc.isenabled() and gc.get_freeze_count() == 0
        assert gc.get_count()[0] < 100  # nothing young left to traverse
        oldest = {id(obj) for obj in gc.get_objects(generation=2)}
        assert all(id(node) in oldest for node in kept)
        assert gc.collect() >= 1  # the cycle is still collected
        gc.disable()
        with collector_paused():
            pass
        assert not gc.isenabled()  # left as it was
    finally:
        gc.enable()


def test_loaded_ads_are_the_dataclass_records(tmp_path):
    from condorlite.store.adfiles import LoadedAd

    path = tmp_path / "two.ads"
    path.write_text('A = 1\n\nA = 2\n', encoding="utf-8")
    first, second = read_ads([path])
    assert first == LoadedAd(first.ad, str(path), 0)
    assert (second.source, second.index, second.ad["A"].value) == (str(path), 1, 2)
    assert not hasattr(first, "__dict__")  # slotted: one per ad of a pool


def test_loaded_ads_are_the_same_built_either_way(tmp_path: Path, monkeypatch) -> None:
    """``LoadedAd``s built by the compiled ``slotted`` (``_LOADED``) and by the slot
    setters are the same records."""
    from condorlite.store import adfiles

    path = tmp_path / "a.ads"
    path.write_text("".join(f"A = {k}\n\n" for k in range(5)))
    got = read_ads([path])
    monkeypatch.setattr(adfiles, "_LOADED", None)
    want = read_ads([path])
    assert [type(one) for one in got] == [adfiles.LoadedAd] * 5
    assert [(one.source, one.index, repr(one.ad)) for one in got] == [
        (one.source, one.index, repr(one.ad)) for one in want]


def test_old_form_files_are_read_as_bytes_by_the_scanner(tmp_path: Path, monkeypatch) -> None:
    """Files are opened over ``oldscan.FileBytes``, so the compiled scanner reads their
    bytes past format detection (and the ads are what the text path reads)."""
    from condorlite.core.classad import oldscan

    if not oldscan.AVAILABLE:
        pytest.skip("the compiled scanner was not built")
    monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    path = tmp_path / "a.ads"
    path.write_text("".join(f'A = {k}\nB = "\u00e9{k}"\n\n' for k in range(5)),
                    encoding="utf-8")
    read = []
    pieces = oldscan._byte_pieces
    monkeypatch.setattr(oldscan, "_byte_pieces",
                        lambda raw, head: read.append(raw) or pieces(raw, head))
    got = [repr(one.ad) for one in read_ads([path])]
    assert len(read) == 1 and type(read[0]) is oldscan.FileBytes
    monkeypatch.setattr(oldscan, "_bytes_of", lambda source, head: None)
    assert [repr(one.ad) for one in read_ads([path])] == got
