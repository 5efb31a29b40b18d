"""``condorlite eval``: human and JSON output, error entries, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from condorlite.cli import app

DATA = Path(__file__).resolve().parent.parent / "data" / "classad-ads"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, ["eval", *args])


def run_json(*args: str):
    result = run("--json", *args)
    return result, json.loads(result.stdout)


def test_human_output_is_one_classad_value_per_line():
    # "--" ends the options, so an expression may start with "-".
    result = run("--", "1 + 2", '"a" == "A"', "false && error", "error && false", "7 / 2", "-7 % 3")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["3", "true", "false", "error", "3", "-1"]


def test_reals_print_as_htcondor_prints_them():
    result = run("1.5", "string(0.1)")
    assert result.stdout.splitlines() == ["1.500000000000000E+00", '"1.000000000000000E-01"']


def test_json_types_and_values():
    result, doc = run_json(
        "1", "2.5", '"s"', "true", "undefined", "1/0", "{1, x}", "[a = 1; b = a + 1]"
    )
    assert result.exit_code == 0
    assert doc["schema_version"] == 1 and doc["command"] == "eval" and doc["status"] == "ok"
    got = [(r["type"], r["value"]) for r in doc["data"]["results"]]
    assert got[:6] == [
        ("integer", 1), ("real", 2.5), ("string", "s"), ("boolean", True),
        ("undefined", None), ("error", None),
    ]
    undefined = {"type": "undefined", "value": None}
    assert got[6] == ("list", [{"type": "integer", "value": 1}, undefined])
    assert got[7] == ("classad", {"a": {"type": "integer", "value": 1},
                                  "b": {"type": "integer", "value": 2}})


def test_non_finite_reals_are_strings_in_json():
    _, doc = run_json("--", "real(\"INF\")", "-real(\"INF\")", "real(\"NaN\")")
    assert [r["value"] for r in doc["data"]["results"]] == ["inf", "-inf", "nan"]
    assert all(r["type"] == "real" for r in doc["data"]["results"])


def test_syntax_error_entry_others_still_evaluate_exit_65():
    result, doc = run_json("1 + 1", "x +", "2 * 3")
    assert result.exit_code == 65
    assert doc["status"] == "error"
    first, bad, last = doc["data"]["results"]
    assert first["value"] == 2 and last["value"] == 6
    assert bad["expr"] == "x +"
    assert bad["error"]["kind"] == "syntax"
    assert (bad["error"]["line"], bad["error"]["column"]) == (1, 4)
    assert "errors" in doc and doc["errors"][0]["kind"] == "syntax"


def test_syntax_error_human_names_column_and_shows_caret():
    result = run("1", "foo(")
    assert result.exit_code == 65
    assert result.stdout.splitlines() == ["1"]
    assert "column 5" in result.stderr
    assert result.stderr.rstrip().endswith("foo(\n    ^")


def test_file_skips_blanks_and_comments_and_reports_file_lines(tmp_path):
    exprs = tmp_path / "exprs.txt"
    exprs.write_text("# header\n1 + 1\n\n  strcat(\"a\", \"b\")\n   (1 +\n")
    result, doc = run_json("--file", str(exprs))
    assert result.exit_code == 65
    results = doc["data"]["results"]
    assert [r.get("value") for r in results[:2]] == [2, "ab"]
    assert results[2]["error"]["line"] == 5
    assert results[2]["error"]["column"] == 8


def test_my_and_target_ads_from_files():
    job = DATA / "htc-pybind-test.old.ad"
    slot = DATA / "htc-statusads-small1slot.ads"
    result, doc = run_json("--my", str(job), "--target", str(slot),
                           "MY.Requirements", "TARGET.Memory >= RequestMemory", "Owner")
    assert result.exit_code == 0
    values = [r["value"] for r in doc["data"]["results"]]
    assert values[0] is True and values[1] is True
    assert isinstance(values[2], str) and values[2]


def test_time_uses_now():
    _, doc = run_json("--now", "1700000000", "time()")
    assert doc["data"]["results"][0] == {"expr": "time()", "type": "integer", "value": 1700000000}


def test_missing_ad_file_exits_66(tmp_path):
    result, doc = run_json("--my", str(tmp_path / "nope.ad"), "1")
    assert result.exit_code == 66
    assert doc["status"] == "error" and doc["errors"][0]["kind"] == "input_missing"


def test_malformed_ad_file_exits_65(tmp_path):
    bad = tmp_path / "bad.ad"
    bad.write_text("A = 1\nB = (\n")
    result = run("--my", str(bad), "A")
    assert result.exit_code == 65
    assert "bad.ad" in result.stderr and ":2" in result.stderr


def test_a_list_prints_its_element_expressions_as_classad_eval_does(tmp_path):
    """A list literal's value keeps its element expressions (as HTCondor's): printed,
    they show; in JSON each element's value is given."""
    ad = tmp_path / "my.ad"
    ad.write_text("[ a = { a }; b = { 1 + 1, Memory } ]\n")
    result = run("--my", str(ad), "{ 1 + 1 }", "a", "b", "a[0]", "{ [x = 1 + 1] }.x")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "{ 1 + 1 }", "{ a }", "{ 1 + 1,Memory }", "{ a }", "{ 2 }"]
    _, doc = run_json("--my", str(ad), "b")
    assert doc["data"]["results"][0]["value"] == [
        {"type": "integer", "value": 2}, {"type": "undefined", "value": None}]
