"""Module installation against every case of the module goldens
(testkit/fixtures/module-goldens/, what the real ``terraform get`` or
``terraform init`` did with the same input): ``tfdisco-dev serve
--golden-module CASE`` sets each case up (its registry, archives and git
repository) with the testkit's own ``Case::setup``, the package's ``get``
(``install`` where Terraform ran ``init``) runs in its working directory,
and the testkit's ``Expected::check`` judges what it left: the exit code,
``modules.json`` byte for byte, the tree of ``.terraform/modules`` (paths,
bytes, modes, each ``.git`` by its HEAD) and the downloads, as the CLI's
test judges ``tfdisco get`` (conftest.ModuleGolden).
"""

from __future__ import annotations

import os
import shutil
from typing import Callable, Dict, List, Optional, Tuple

import pytest

import tfdisco
from conftest import REPO, ModuleGolden

GOLDENS = REPO / "testkit" / "fixtures" / "module-goldens"
#: Every case, by its folder (the testkit checks the folders are its cases).
CASES = sorted(p.name for p in GOLDENS.iterdir() if p.is_dir())

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the cases' git modules need the system git")


#: The failing cases: the failed calls and why, as ``LockError.failures``
#: (key, kind); the error's kind is ``"modules"`` for each.
FAILURES: Dict[str, List[Tuple[str, str]]] = {
    "archive-404": [("missing", "download")],
    "archive-dotdot": [("dotdot", "download")],
    "checksum-mismatch": [("wrong", "download")],
    "download-404": [("gone", "registry")],
    "git-bad-ref": [("nope", "download")],
    "init-partial": [("gone", "registry")],
    "no-version-matches": [("net", "no_version")],
    "page-hop-limit": [("loop", "download")],
    "zip-link-named-tf": [("linked", "configuration")],
}


def test_every_case_has_a_folder() -> None:
    assert len(CASES) == 27
    assert set(FAILURES) < set(CASES)


@pytest.mark.parametrize("name", CASES)
def test_get_leaves_what_the_golden_says(
    name: str, module_golden: Callable[[str], ModuleGolden], monkeypatch: pytest.MonkeyPatch
) -> None:
    case = module_golden(name)
    # git reads its own settings (GIT_SSL_CAINFO, GIT_SSH_COMMAND) from the
    # process's environment, not from the client's ``env``.
    for key, value in case.env.items():
        if key.startswith("GIT_"):
            monkeypatch.setenv(key, value)
    client = tfdisco.Client(
        dialect="terraform",
        ca_files=[case.ca],
        credentials=None,
        env={**case.env, "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    failures: Optional[List[Tuple[str, str]]] = None
    try:
        if case.command == "install":
            client.install(case.dir, upgrade=case.upgrade)
        else:
            client.get(case.dir, upgrade=case.upgrade)
        exit = 0
    except tfdisco.LockError as error:
        assert error.kind == "modules"
        exit = error.exit_code
        failures = [(f.key, f.kind) for f in error.failures if isinstance(f, tfdisco.ModuleFailure)]
        assert len(failures) == len(error.failures)
    case.check(exit)
    assert failures == FAILURES.get(name)
