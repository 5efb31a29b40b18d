"""Every test runs as if on a fresh account: no state directory, configuration or lock
timeout of the developer's own leaks in through the environment. A test that wants one
sets it itself (``monkeypatch.setenv`` after this fixture) or passes ``--state-dir``."""

from __future__ import annotations

import hashlib

import pytest


@pytest.fixture(autouse=True)
def _isolated_environment(request, monkeypatch, tmp_path_factory) -> None:
    # a path of its own per test, never created here: a reading command must find no
    # state there, a writing one creates it as on a fresh machine
    name = hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:16]
    monkeypatch.setenv("CONDORLITE_STATE_DIR",
                       str(tmp_path_factory.getbasetemp() / "state-dirs" / name))
    monkeypatch.delenv("CONDORLITE_CONFIG", raising=False)
    monkeypatch.delenv("CONDORLITE_LOCK_TIMEOUT", raising=False)
