"""The dialect a client follows when none is given (docs/behaviour.md
CFG-14): the one the current working directory and the client's ``env``
(else the process's) mean when it is made, in the CLI's order —
``TFDISCO_DIALECT``, the folder's lock file, ``.tofu`` files, the one of
``terraform`` and ``tofu`` on the ``PATH`` — else OpenTofu; the module's
``lock``, ``install`` and ``mirror`` look in their ``dir``, as the CLI in its
``--chdir`` folder. ``client.dialect_choice`` and the reports say which and
why.

Every environment here names its own ``PATH`` (an empty folder, or one with
stand-in programs), so that a ``terraform`` on the machine's ``PATH``
decides nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Callable, Dict

import pytest

import tfdisco
from conftest import Golden, Served
from test_lock import LOCK_FILE, expected, prepare

TERRAFORM_HEADER = (
    '# This file is maintained automatically by "terraform init".\n'
    "# Manual edits may be lost in future updates.\n"
)
TOFU_HEADER = (
    '# This file is maintained automatically by "tofu init".\n'
    "# Manual edits may be lost in future updates.\n"
)


def folder(tmp_path: Path, name: str) -> Path:
    """A new folder, by the name ``os.getcwd()`` gives it."""
    made = tmp_path / name
    made.mkdir(parents=True, exist_ok=True)
    return made.resolve()


def bin_with(tmp_path: Path, *programs: str) -> str:
    """A folder for ``PATH`` holding stand-ins for ``programs``."""
    bin = folder(tmp_path, "bin-" + "-".join(programs or ("empty",)))
    for name in programs:
        program = bin / name
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(0o755)
    return str(bin)


def choice_env(tmp_path: Path, **extra: str) -> Dict[str, str]:
    """A client's environment: the test's home, ``PATH`` an empty folder, and
    ``extra``."""
    return {"HOME": str(tmp_path / "home"), "PATH": bin_with(tmp_path), **extra}


@pytest.fixture
def terraform_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current working directory, holding a lock file ``terraform init``
    wrote."""
    work = folder(tmp_path, "work")
    (work / LOCK_FILE).write_text(TERRAFORM_HEADER)
    monkeypatch.chdir(work)
    return work


def test_a_lock_file_terraform_init_wrote_chooses_terraform(terraform_dir: Path, tmp_path: Path) -> None:
    client = tfdisco.Client(credentials=None, env=choice_env(tmp_path))

    why = f"the lock file {terraform_dir / LOCK_FILE} was written by terraform init"
    assert client.dialect == "terraform"
    choice = client.dialect_choice
    assert isinstance(choice, tfdisco.DialectChoice)
    assert (choice.name, choice.chosen_by, choice.why) == ("terraform", "lock_file", why)
    assert json.loads(choice.to_json()) == {"name": "terraform", "chosen_by": "lock_file", "why": why}
    assert repr(choice) == f"DialectChoice(name='terraform', chosen_by='lock_file', why={why!r})"
    assert repr(client) == "Client(dialect='terraform', timeout=11.0, credentials=None)"
    with pytest.raises(AttributeError):
        choice.name = "opentofu"  # type: ignore[misc]
    # The same for AsyncClient, which wraps a Client.
    async_client = tfdisco.AsyncClient(credentials=None, env=choice_env(tmp_path))
    assert async_client.dialect == "terraform"
    assert async_client.dialect_choice == choice
    assert repr(async_client).startswith("AsyncClient(dialect='terraform', ")

    # tofu init's lock file: OpenTofu; a first line naming no CLI: the
    # registry every provider is from.
    (terraform_dir / LOCK_FILE).write_text(TOFU_HEADER)
    tofu = tfdisco.Client(credentials=None, env=choice_env(tmp_path)).dialect_choice
    assert (tofu.name, tofu.chosen_by) == ("opentofu", "lock_file")
    (terraform_dir / LOCK_FILE).write_text('provider "registry.terraform.io/hashicorp/aws" {\n}\n')
    hosts = tfdisco.Client(credentials=None, env=choice_env(tmp_path)).dialect_choice
    assert (hosts.name, hosts.chosen_by, hosts.why) == (
        "terraform",
        "lock_file",
        f"every provider of the lock file {terraform_dir / LOCK_FILE} is from registry.terraform.io",
    )


def test_tfdisco_dialect_in_env_comes_before_the_lock_file(terraform_dir: Path, tmp_path: Path) -> None:
    (terraform_dir / LOCK_FILE).write_text(TOFU_HEADER)

    client = tfdisco.Client(credentials=None, env=choice_env(tmp_path, TFDISCO_DIALECT="terraform"))

    choice = client.dialect_choice
    assert (choice.name, choice.chosen_by, choice.why) == ("terraform", "variable", "TFDISCO_DIALECT names it")
    spelled = tfdisco.Client(credentials=None, env=choice_env(tmp_path, TFDISCO_DIALECT="TOFU"))
    assert spelled.dialect == "opentofu"
    # Empty is unset.
    empty = tfdisco.Client(credentials=None, env=choice_env(tmp_path, TFDISCO_DIALECT=""))
    assert empty.dialect_choice.chosen_by == "lock_file"


def test_a_tfdisco_dialect_that_names_no_dialect_raises_invalid_option(terraform_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(tfdisco.InvalidOption) as caught:
        tfdisco.Client(credentials=None, env=choice_env(tmp_path, TFDISCO_DIALECT="terraformish"))
    error = caught.value
    assert isinstance(error, ValueError) and error.kind == "invalid_option"
    assert str(error) == (
        'TFDISCO_DIALECT: unknown dialect "terraformish" '
        '(expected "opentofu", "tofu" or "terraform", in any case)'
    )
    # As a bad dialect= does.
    with pytest.raises(tfdisco.InvalidOption, match="^dialect: unknown dialect"):
        tfdisco.Client(dialect="pulumi", credentials=None)
    with pytest.raises(tfdisco.InvalidOption):
        tfdisco.AsyncClient(credentials=None, env={"TFDISCO_DIALECT": "x"})
    with pytest.raises(tfdisco.InvalidOption):
        tfdisco.lock(terraform_dir, credentials=None, env={"TFDISCO_DIALECT": "x"})
    # A dialect given does not read the variable.
    given = tfdisco.Client(dialect="terraform", credentials=None, env={"TFDISCO_DIALECT": "x"})
    assert given.dialect_choice.chosen_by == "given"


def test_a_tofu_file_chooses_opentofu_before_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = folder(tmp_path, "work")
    (work / "main.tf").write_text("")
    (work / "main.tofu").write_text("")
    monkeypatch.chdir(work)

    client = tfdisco.Client(credentials=None, env=choice_env(tmp_path, PATH=bin_with(tmp_path, "terraform")))

    choice = client.dialect_choice
    assert (choice.name, choice.chosen_by, choice.why) == (
        "opentofu",
        "tofu_file",
        f"{work / 'main.tofu'} is an OpenTofu file",
    )


def test_the_one_program_on_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder(tmp_path, "work"))
    terraform = bin_with(tmp_path, "terraform")
    tofu = bin_with(tmp_path, "tofu")

    def chosen(path: str) -> tfdisco.DialectChoice:
        return tfdisco.Client(credentials=None, env=choice_env(tmp_path, PATH=path)).dialect_choice

    only = chosen(terraform)
    assert (only.name, only.chosen_by, only.why) == (
        "terraform",
        "program",
        f"{Path(terraform) / 'terraform'} is on the PATH, and tofu is not",
    )
    assert (chosen(tofu).name, chosen(tofu).chosen_by) == ("opentofu", "program")
    for nothing_told in (os.pathsep.join([terraform, tofu]), bin_with(tmp_path)):
        assert (chosen(nothing_told).name, chosen(nothing_told).chosen_by) == ("opentofu", "default")
    assert chosen(bin_with(tmp_path)).why.startswith("nothing tells otherwise")
    # No PATH in the env at all: no program.
    assert tfdisco.Client(credentials=None, env={"HOME": str(tmp_path)}).dialect_choice.chosen_by == "default"


def test_a_dialect_given_is_given(terraform_dir: Path, tmp_path: Path) -> None:
    for given, name in [("terraform", "terraform"), ("tofu", "opentofu"), ("OpenTofu", "opentofu")]:
        client = tfdisco.Client(dialect=given, credentials=None, env=choice_env(tmp_path))
        choice = client.dialect_choice
        assert (client.dialect, choice.name, choice.chosen_by, choice.why) == (name, name, "given", "given")
        assert choice == tfdisco.Client(dialect=name, credentials=None).dialect_choice
    # None is no dialect: detected.
    assert tfdisco.Client(dialect=None, credentials=None, env=choice_env(tmp_path)).dialect_choice.chosen_by == "lock_file"


def test_without_env_the_process_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder(tmp_path, "work"))
    monkeypatch.setenv("TFDISCO_DIALECT", "terraform")
    variable = tfdisco.Client(credentials=None).dialect_choice
    assert (variable.name, variable.chosen_by) == ("terraform", "variable")

    monkeypatch.delenv("TFDISCO_DIALECT")
    monkeypatch.setenv("PATH", bin_with(tmp_path, "tofu"))
    program = tfdisco.Client(credentials=None).dialect_choice
    assert (program.name, program.chosen_by) == ("opentofu", "program")

    monkeypatch.setenv("TFDISCO_DIALECT", "nothing")
    with pytest.raises(tfdisco.InvalidOption):
        tfdisco.Client(credentials=None)


def test_the_folder_is_read_once_when_the_client_is_made(
    terraform_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = tfdisco.Client(credentials=None, env=choice_env(tmp_path))
    elsewhere = folder(tmp_path, "elsewhere")
    (elsewhere / "main.tofu").write_text("")
    monkeypatch.chdir(elsewhere)

    assert client.dialect == "terraform"
    assert client.dialect_choice.why == f"the lock file {terraform_dir / LOCK_FILE} was written by terraform init"


# --- The reports carry it --------------------------------------------------------


def test_lock_golden_add_platform_follows_its_lock_file(
    registry_served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client made in the folder of the lock golden add-platform (a lock
    file ``terraform init`` wrote) locks it as Terraform did, and its report
    says why; so does the module's ``lock`` from another folder, looking in
    ``dir``."""
    host = registry_served.host
    directory = prepare("add-platform", folder(tmp_path, "case"), host)
    why = f"the lock file {directory / LOCK_FILE} was written by terraform init"
    env = choice_env(tmp_path)

    report = tfdisco.lock(directory, ["darwin_arm64"], ca_files=[registry_served.ca], credentials=None, env=env)

    assert (directory / LOCK_FILE).read_bytes() == expected("add-platform", host)
    # Terraform's word for the test key's signature (OpenTofu's is "signed").
    assert {p.trust for p in report.providers} == {"self-signed"}
    assert (report.dialect.name, report.dialect.chosen_by, report.dialect.why) == ("terraform", "lock_file", why)
    document = json.loads(report.to_json())
    assert list(document) == ["lock_file", "changed", "platforms", "providers", "dialect"]
    assert document["dialect"] == {"name": "terraform", "chosen_by": "lock_file", "why": why}
    assert repr(report).endswith(f"dialect=DialectChoice(name='terraform', chosen_by='lock_file', why={why!r}))")

    # A client made in the folder; the mirror of it says the same.
    monkeypatch.chdir(directory)
    client = tfdisco.Client(ca_files=[registry_served.ca], credentials=None, env=env)
    monkeypatch.chdir(tmp_path)
    again = client.lock(directory, ["darwin_arm64"])
    assert again.changed is False and again.dialect == report.dialect
    mirrored = client.mirror(directory, tmp_path / "mirror", ["linux_amd64"])
    assert mirrored.dialect == report.dialect
    assert json.loads(mirrored.to_json())["dialect"]["chosen_by"] == "lock_file"
    asynchronous = asyncio.run(tfdisco.AsyncClient.from_client(client).lock(directory, ["darwin_arm64"]))
    assert asynchronous.dialect == report.dialect

    # Given: "given", whatever the folder.
    given = tfdisco.lock(directory, ["darwin_arm64"], dialect="terraform", ca_files=[registry_served.ca],
                         credentials=None, env=env)
    assert json.loads(given.to_json())["dialect"] == {"name": "terraform", "chosen_by": "given", "why": "given"}


def test_install_golden_upgrade_follows_its_lock_file(golden: Callable[[str], Golden], tmp_path: Path) -> None:
    """The module's ``install`` in the install golden upgrade's folder (a
    lock file ``terraform init`` wrote), without a dialect: what ``terraform
    init -upgrade`` did, and the report says why."""
    case = golden("upgrade")
    assert case.lock_before is not None and case.lock_before.startswith(TERRAFORM_HEADER)
    env = {**case.env, "PATH": bin_with(tmp_path)}

    report = tfdisco.install(case.dir, upgrade=case.upgrade, ca_files=[case.ca], credentials=None, env=env)

    case.check(0)
    why = f"the lock file {case.dir / LOCK_FILE} was written by terraform init"
    assert (report.dialect.name, report.dialect.chosen_by, report.dialect.why) == ("terraform", "lock_file", why)
    document = json.loads(report.to_json())
    assert list(document) == ["lock_file", "changed", "platform", "providers", "warnings", "dialect", "modules"]
    assert document["dialect"] == {"name": "terraform", "chosen_by": "lock_file", "why": why}
