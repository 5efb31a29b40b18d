"""Where the state directory is: ``--state-dir`` > ``$CONDORLITE_STATE_DIR`` > user state dir.

The CLI passes what it received (``--state-dir``, which Typer already fills from the
environment variable, or None); this module applies the rest of the rule, so there is
one place that decides it. File names inside the directory are fixed here too.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

ENV_STATE_DIR = "CONDORLITE_STATE_DIR"
CONFIG_NAME = "condorlite.toml"
DB_NAME = "state.db"


def resolve_state_dir(given: Path | str | None, env: dict[str, str] | None = None) -> Path:
    """The state directory to use (not created here).

    ``given`` wins; else ``$CONDORLITE_STATE_DIR`` (from ``env``, default the process
    environment) when non-empty; else ``platformdirs.user_state_dir("condorlite")``.
    """
    if given is not None and str(given) != "":
        return Path(given).expanduser()
    environ = os.environ if env is None else env
    from_env = environ.get(ENV_STATE_DIR, "")
    if from_env:
        return Path(from_env).expanduser()
    return Path(platformdirs.user_state_dir("condorlite"))


def config_path(state_dir: Path) -> Path:
    return state_dir / CONFIG_NAME


def db_path(state_dir: Path) -> Path:
    return state_dir / DB_NAME
