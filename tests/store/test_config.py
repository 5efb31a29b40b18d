"""condorlite.toml: defaults, validation, suggestions, the commented default file."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from condorlite.core.policy import Policy
from condorlite.errors import ConfigError
from condorlite.store.config import KNOBS, default_config_text, load_policy, policy_from_mapping

P = Path("condorlite.toml")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "condorlite.toml"
    path.write_text(text)
    return path


def test_default_file_parses_to_the_default_policy_with_its_uid_domain(tmp_path):
    text = default_config_text("cm.example.org")
    assert load_policy(write(tmp_path, text)) == Policy(uid_domain="cm.example.org")
    for knob in KNOBS:  # every knob is documented in the file
        assert knob.name in text
    # only UID_DOMAIN is active; everything else is commented
    assert tomllib.loads(text) == {"UID_DOMAIN": "cm.example.org"}


def test_knobs_map_onto_policy_fields():
    policy = policy_from_mapping(
        {
            "PRIORITY_HALFLIFE": 3600,
            "default_prio_factor": 1,  # HTCondor knob names are case-insensitive
            "ACCOUNTANT_LOCAL_DOMAIN": "example.org",
            "GROUP_NAMES": "group_a, group_b",
            "GROUP_PRIO_FACTOR_group_a": 5,
            "GROUP_QUOTA_DYNAMIC_GROUP_B": 0.5,
            "GROUP_QUOTA_group_a": 10,
            "GROUP_QUOTA_MAX_ALLOCATION_ROUNDS": 4,
            "GROUP_ACCEPT_SURPLUS": "True",
            "SLOTS": ["pool/slots"],
        },
        P,
    )
    assert policy.priority_halflife == 3600.0 and policy.default_prio_factor == 1.0
    assert policy.accountant_local_domain == "example.org"
    assert policy.group_names == ("group_a", "group_b")
    assert policy.group_prio_factor == {"group_a": 5.0}
    assert policy.group_quota_dynamic == {"group_b": 0.5}
    assert policy.group_quota == {"group_a": 10.0}
    assert policy.group_quota_max_allocation_rounds == 4
    assert policy.group_accept_surplus is True
    assert policy.slots == ("pool/slots",)


def test_unknown_key_suggests_the_nearest_knob(tmp_path):
    path = write(tmp_path, 'UID_DOMAIN = "x"\nPRIORITY_HALFLIFF = 10\n')
    with pytest.raises(ConfigError) as err:
        load_policy(path)
    assert "PRIORITY_HALFLIFF" in err.value.message
    assert "did you mean PRIORITY_HALFLIFE?" in err.value.message
    assert f"{path}:2:" in err.value.message
    assert err.value.exit_code == 78


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("PRIORITY_HALFLIFE = 0", "must be >="),
        ("PRIORITY_HALFLIFE = 'soon'", "expected a number"),
        ("DEFAULT_PRIO_FACTOR = 0.5", "must be >= 1"),
        ("NEGOTIATOR_USE_SLOT_WEIGHTS = 3", "expected true or false"),
        ("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS = 1.5", "expected an integer"),
        ("GROUP_PRIO_FACTOR_physics = 2", "not in GROUP_NAMES"),
        ("GROUP_NAMES = ['a']\nGROUP_QUOTA_DYNAMIC_a = 2", "fraction"),
        ("GROUP_NAMES = ['a', 'A']", "listed twice"),
        ("UID_DOMAIN = ''", "non-empty"),
        ("[section]\nx = 1", "tables are not used"),
        ("PRIORITY_HALFLIFE = ", "invalid TOML"),
    ],
)
def test_bad_values_are_config_errors(tmp_path, text, fragment):
    with pytest.raises(ConfigError, match=fragment):
        load_policy(write(tmp_path, text + "\n"))


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_policy(tmp_path / "nope.toml")


def test_bad_expression_names_knob_and_line(tmp_path):
    classad = pytest.importorskip("condorlite.core.classad")
    if not hasattr(classad, "parse_expr"):
        pytest.skip("the ClassAd parser is not exported yet")
    path = write(tmp_path, 'UID_DOMAIN = "x"\n\nPREEMPTION_REQUIREMENTS = "RemoteUserPrio > "\n')
    with pytest.raises(ConfigError) as err:
        load_policy(path)
    assert "PREEMPTION_REQUIREMENTS" in err.value.message
    assert f"{path}:3:" in err.value.message
    good = write(tmp_path, 'PREEMPTION_REQUIREMENTS = "RemoteUserPrio > SubmitterUserPrio"\n')
    assert "RemoteUserPrio" in load_policy(good).preemption_requirements


def test_an_unquoted_expression_gets_a_hint(tmp_path):
    """A condor_config line copied as it is: the error says expressions are quoted
    strings (issue 20, everyday friction)."""
    from condorlite.errors import ConfigError
    from condorlite.store.config import load_policy

    path = tmp_path / "condorlite.toml"
    path.write_text("PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n")
    with pytest.raises(ConfigError) as info:
        load_policy(path)
    assert info.value.exit_code == 78
    assert info.value.hint is not None and "quoted strings" in info.value.hint
    assert 'PREEMPTION_REQUIREMENTS = "RemoteUserPrio > SubmitterUserPrio * 1.2"' in (
        info.value.hint)
