"""Provider installation methods: ``tfdisco.installation_methods``
answers what ``tfdisco provider source`` answers: which method of the CLI
configuration's ``provider_installation`` block (or of the implied
configuration) would install a provider, in priority order, and why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tfdisco

BLOCK = """
provider_installation {
  dev_overrides {
    "example.com/acme/dev" = "/home/me/dev"
  }
  filesystem_mirror {
    path    = "/srv/mirror"
    include = ["example.com/*/*"]
  }
  network_mirror {
    url     = "https://mirror.example.com/providers/"
    exclude = ["example.com/acme/*"]
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
"""


def methods(source: str, home: Path, **kw: object) -> list:
    env = {"HOME": str(home), **kw.pop("env", {})}  # type: ignore[dict-item]
    got = tfdisco.installation_methods(source, dialect="terraform", cwd=home, env=env, **kw)  # type: ignore[arg-type]
    return [(m.priority, m.method, m.location, m.may_install) for m in got]


def test_an_explicit_block(tmp_path: Path) -> None:
    rc = tmp_path / "terraformrc"
    rc.write_text(BLOCK, encoding="utf-8")
    env = {"TF_CLI_CONFIG_FILE": str(rc)}

    assert methods("example.com/acme/widget", tmp_path, env=env) == [
        (1, "filesystem_mirror", "/srv/mirror", True),
        (2, "network_mirror", "https://mirror.example.com/providers/", False),
        (3, "direct", "example.com", False),
    ]
    assert methods("hashicorp/aws", tmp_path, env=env) == [
        (1, "filesystem_mirror", "/srv/mirror", False),
        (2, "network_mirror", "https://mirror.example.com/providers/", True),
        (3, "direct", "registry.terraform.io", True),
    ]
    dev = tfdisco.installation_methods(
        "example.com/acme/dev", dialect="terraform", cwd=tmp_path, env={"TF_CLI_CONFIG_FILE": str(rc)}
    )
    assert [(m.priority, m.method, m.location, m.may_install) for m in dev][:2] == [
        (None, "dev_overrides", "/home/me/dev", True),
        (1, "filesystem_mirror", "/srv/mirror", True),
    ]
    first, second = tfdisco.installation_methods(
        "example.com/acme/widget", dialect="terraform", cwd=tmp_path, env={"TF_CLI_CONFIG_FILE": str(rc)}
    )[:2]
    assert "example.com/*/*" in first.reason
    assert second.reason == 'exclude pattern "example.com/acme/*" matches'
    assert first.supported is True
    assert repr(first).startswith("InstallationMethod(method='filesystem_mirror', location='/srv/mirror', priority=1")


def test_the_implied_configuration(tmp_path: Path) -> None:
    """Without a block: the local mirror directories that exist, then
    ``direct`` for the providers not found in them."""
    plugins = tmp_path / ".terraform.d" / "plugins" / "example.com" / "acme" / "local"
    (plugins / "1.0.0" / "linux_amd64").mkdir(parents=True)

    local = methods("example.com/acme/local", tmp_path)
    assert local[0][1:] == ("filesystem_mirror", str(tmp_path / ".terraform.d" / "plugins"), True)
    assert local[-1][1:] == ("direct", "example.com", False)
    other = methods("hashicorp/aws", tmp_path)
    assert other[-1][1:] == ("direct", "registry.terraform.io", True)


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(tfdisco.InvalidSource):
        tfdisco.installation_methods("aws", dialect="terraform", env={"HOME": str(tmp_path)})
    with pytest.raises(ValueError):
        tfdisco.installation_methods("hashicorp/aws", dialect="pulumi")
