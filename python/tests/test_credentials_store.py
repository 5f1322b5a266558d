"""Saving and removing a token as ``terraform login`` / ``logout`` do:
``tfdisco.store_credentials`` and ``tfdisco.forget_credentials``, on
temporary home folders given through ``env=`` (and a child process's own
``HOME``): ``credentials.tfrc.json`` byte for byte (sorted keys, two-space
indent, no final newline), mode 0600 in a 0700 folder, the other hosts kept,
``TF_CLI_CONFIG_FILE``, a ``credentials_helper``, a host configured in
another CLI configuration file refused with ``CredentialsUnwritable``, and
the token in no message (docs/behaviour.md, CRED-7, CRED-8).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Dict

import pytest

import tfdisco
from conftest import run_python

FILE = Path(".terraform.d") / "credentials.tfrc.json"
SECRET = "s3cret-token-value"


def env_for(home: Path, **more: str) -> Dict[str, str]:
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), **more}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_store_writes_the_file_as_terraform_login_does(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    env = env_for(home)
    where = tfdisco.store_credentials("App.Example.COM:443", "tok-a", dialect="terraform", env=env)
    path = home / FILE
    assert where == f"credentials file {path}"
    assert path.read_bytes() == b'{\n  "credentials": {\n    "app.example.com": {\n      "token": "tok-a"\n    }\n  }\n}'
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700

    tfdisco.store_credentials(tfdisco.Hostname("b.example.com"), "tok-b", dialect="terraform", env=env)
    tfdisco.store_credentials("app.example.com", "tok-a2", dialect="terraform", env=env)
    assert path.read_bytes() == (
        b'{\n  "credentials": {\n    "app.example.com": {\n      "token": "tok-a2"\n    },\n'
        b'    "b.example.com": {\n      "token": "tok-b"\n    }\n  }\n}'
    )
    assert mode(path) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["credentials.tfrc.json"], "no temporary file left"
    # What a client of the same configuration then sends.
    client = tfdisco.Client(dialect="terraform", env=env)
    assert client.credentials_source("app.example.com") == f"credentials file {path}"

    assert tfdisco.forget_credentials("APP.example.com", dialect="terraform", env=env) == where
    assert path.read_bytes() == b'{\n  "credentials": {\n    "b.example.com": {\n      "token": "tok-b"\n    }\n  }\n}'
    assert mode(path) == 0o600
    tfdisco.forget_credentials("app.example.com", dialect="terraform", env=env)  # nothing there: no error
    tfdisco.forget_credentials("b.example.com", dialect="terraform", env=env)
    assert path.read_bytes() == b'{\n  "credentials": {}\n}'


def test_other_content_is_kept_and_opentofu_writes_the_same_file(tmp_path: Path) -> None:
    home = tmp_path / "h"
    (home / FILE).parent.mkdir(parents=True)
    (home / FILE).write_text(
        '{"zz": [1, "x"], "credentials": {"keep.example.com": {"token": "k"}}, "aa": {"b": true}}', encoding="utf-8"
    )
    (home / FILE).chmod(0o644)
    tfdisco.store_credentials("new.example.com", "n", env=env_for(home))
    assert (home / FILE).read_bytes() == (
        b'{\n  "aa": {\n    "b": true\n  },\n  "credentials": {\n    "keep.example.com": {\n      "token": "k"\n    },\n'
        b'    "new.example.com": {\n      "token": "n"\n    }\n  },\n  "zz": [\n    1,\n    "x"\n  ]\n}'
    )
    assert mode(home / FILE) == 0o600


def test_a_host_in_another_cli_configuration_file_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    rc = home / ".terraformrc"
    rc.write_text('credentials "app.example.com" {\n  token = "hand-written"\n}\n', encoding="utf-8")
    for call in (
        lambda: tfdisco.store_credentials("app.example.com", SECRET, dialect="terraform", env=env_for(home)),
        lambda: tfdisco.forget_credentials("app.example.com", dialect="terraform", env=env_for(home)),
    ):
        with pytest.raises(tfdisco.CredentialsUnwritable) as raised:
            call()
        error = raised.value
        assert isinstance(error, tfdisco.CredentialsError)
        assert error.kind == "credentials_unwritable"
        assert str(error) == (
            "cannot change credentials for app.example.com: existing manually-configured credentials in a CLI config file"
        )
        assert SECRET not in repr(error)
    assert not (home / FILE).exists()
    assert "hand-written" in rc.read_text(encoding="utf-8")
    # Another host is stored as usual.
    tfdisco.store_credentials("other.example.com", "o", dialect="terraform", env=env_for(home))
    assert json.loads((home / FILE).read_text(encoding="utf-8")) == {"credentials": {"other.example.com": {"token": "o"}}}


def test_tf_cli_config_file_is_honoured(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    config = tmp_path / "override.tfrc"
    config.write_text('credentials "app.example.com" { token = "t" }\n', encoding="utf-8")
    env = env_for(home, TF_CLI_CONFIG_FILE=str(config))
    with pytest.raises(tfdisco.CredentialsUnwritable):
        tfdisco.store_credentials("app.example.com", SECRET, dialect="terraform", env=env)
    # The override hides credentials.tfrc.json from lookups, not from
    # stores: another host still goes there.
    where = tfdisco.store_credentials("b.example.com", "b", dialect="terraform", env=env)
    assert where == f"credentials file {home / FILE}"
    assert json.loads((home / FILE).read_text(encoding="utf-8")) == {"credentials": {"b.example.com": {"token": "b"}}}


def helper(home: Path, log: Path, fail: bool = False) -> Path:
    """The credentials helper ``log`` (``terraform-credentials-log``),
    appending its arguments and input to ``log``, named in ``.terraformrc``."""
    plugins = home / ".terraform.d" / "plugins"
    plugins.mkdir(parents=True)
    program = plugins / "terraform-credentials-log"
    body = f'printf "%s %s " "$1" "$2" >> {log}\ncat >> {log}\necho >> {log}\n'
    if fail:
        body = "echo 'helper says no' >&2\nexit 1\n"
    program.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    program.chmod(0o755)
    (home / ".terraformrc").write_text('credentials_helper "log" {}\n', encoding="utf-8")
    return program


def test_a_credentials_helper_takes_the_store_and_forget(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    log = tmp_path / "helper.log"
    program = helper(home, log)
    env = env_for(home)
    where = tfdisco.store_credentials("App.example.com", "tok", dialect="terraform", env=env)
    assert where == f'credentials helper "log" ({program})'
    assert tfdisco.forget_credentials("app.example.com", dialect="terraform", env=env) == where
    assert log.read_text(encoding="utf-8") == 'store app.example.com {"token":"tok"}\nforget app.example.com \n'
    assert not (home / FILE).exists()


def test_the_token_is_in_no_error(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    helper(home, tmp_path / "log", fail=True)
    with pytest.raises(tfdisco.CredentialsError) as raised:
        tfdisco.store_credentials("app.example.com", SECRET, dialect="terraform", env=env_for(home))
    assert type(raised.value) is tfdisco.CredentialsError
    assert "helper says no" in str(raised.value)
    assert SECRET not in str(raised.value) and SECRET not in repr(raised.value)

    with pytest.raises(tfdisco.InvalidArgument) as bad:
        tfdisco.store_credentials("app.example.com", SECRET + "\n", dialect="terraform", env=env_for(home))
    assert SECRET not in str(bad.value) and SECRET not in repr(bad.value)
    with pytest.raises(tfdisco.InvalidHostname):
        tfdisco.store_credentials("not a host", SECRET, env=env_for(home))
    with pytest.raises(TypeError):
        tfdisco.store_credentials("app.example.com", 42, env=env_for(home))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        tfdisco.store_credentials("app.example.com", "t", dialect="pulumi", env=env_for(home))


def test_without_a_home_there_is_no_store(tmp_path: Path) -> None:
    with pytest.raises(tfdisco.CredentialsError) as raised:
        tfdisco.store_credentials("app.example.com", SECRET, dialect="terraform", env={})
    assert str(raised.value) == "no credentials store is available"


def test_the_process_environment_by_default(tmp_path: Path) -> None:
    """Without ``env=``, the process's ``HOME``: a child process's own."""
    home = tmp_path / "child-home"
    home.mkdir()
    code = (
        "import tfdisco\n"
        "print(tfdisco.store_credentials('app.example.com', 'child', dialect='terraform'))\n"
        "print(tfdisco.forget_credentials('other.example.com', dialect='terraform'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("TF_CLI_CONFIG_FILE",)}
    result = run_python(code, {**env, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"credentials file {home / FILE}"] * 2
    assert (home / FILE).read_bytes() == b'{\n  "credentials": {\n    "app.example.com": {\n      "token": "child"\n    }\n  }\n}'
