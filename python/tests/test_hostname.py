"""Hostnames: the class, the functions, and parity with the Rust core."""

from __future__ import annotations

import json
import pickle
import subprocess
from pathlib import Path

import pytest

import tfdisco
from corpus import corpus

REPO = Path(__file__).resolve().parent.parent.parent


def test_comparison_and_display_forms() -> None:
    h = tfdisco.Hostname("Испытание.COM:443")
    assert str(h) == "xn--80akhbyknj4f.com"
    assert h.display == "испытание.com"
    assert h.host == "xn--80akhbyknj4f.com"
    assert h.port is None
    m = tfdisco.Hostname("München.DE:08443")
    assert (str(m), m.display, m.host, m.port) == (
        "xn--mnchen-3ya.de:8443",
        "münchen.de:8443",
        "xn--mnchen-3ya.de",
        8443,
    )


def test_equality_hash_order_and_repr() -> None:
    a = tfdisco.Hostname("Example.COM:443")
    b = tfdisco.Hostname("example.com")
    c = tfdisco.Hostname("example.net")
    assert a == b and hash(a) == hash(b) and len({a, b, c}) == 2
    assert a != c and a < c and sorted([c, a]) == [a, c]
    assert a != "example.com"  # a Hostname equals Hostnames only
    assert repr(tfdisco.Hostname("münchen.de")) == "Hostname('münchen.de')"
    m = tfdisco.Hostname("München.DE:8443")
    assert eval(repr(m), {"Hostname": tfdisco.Hostname}) == m


def test_from_comparison_and_pickle() -> None:
    h = tfdisco.Hostname.from_comparison("xn--mnchen-3ya.de:8443")
    assert h.display == "münchen.de:8443"
    assert pickle.loads(pickle.dumps(h)) == h
    with pytest.raises(tfdisco.InvalidHostname):
        tfdisco.Hostname.from_comparison("Example.com")
    with pytest.raises(tfdisco.InvalidHostname):
        tfdisco.Hostname("xn--mnchen-3ya.de")  # punycode input is refused


def test_immutable() -> None:
    h = tfdisco.Hostname("example.com")
    with pytest.raises(AttributeError):
        h.port = 1  # type: ignore[misc]


def test_functions() -> None:
    assert tfdisco.normalize("Registry.Terraform.IO:443") == "registry.terraform.io"
    assert tfdisco.for_display("xn--80akhbyknj4f.com") == "испытание.com"
    assert tfdisco.for_display("example.com:boo") == "example.com:boo"
    assert tfdisco.is_valid("example.com:8443")
    assert not tfdisco.is_valid("example.com:0")
    assert not tfdisco.is_valid("under_score.com")


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("a..b", "empty label"),
        ("", ""),
        ("example.com:99999", ""),
        ("https://example.com", ""),
        ("xn--mnchen-3ya.de", ""),
    ],
)
def test_invalid_hostnames_raise(name: str, fragment: str) -> None:
    with pytest.raises(tfdisco.InvalidHostname) as caught:
        tfdisco.normalize(name)
    error = caught.value
    assert isinstance(error, tfdisco.Error) and isinstance(error, ValueError)
    assert error.kind == "invalid_hostname"
    assert str(error).startswith("invalid hostname")
    assert fragment in str(error)
    with pytest.raises(tfdisco.InvalidHostname):
        tfdisco.Hostname(name)


def test_wrong_types() -> None:
    with pytest.raises(TypeError):
        tfdisco.normalize(b"example.com")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tfdisco.Hostname(42)  # type: ignore[arg-type]


def _parity_names() -> list:
    names = corpus(10_000)
    assert len(names) == 10_000 and len(set(names)) > 1_000
    return names


def _conformance_names() -> list:
    """The Go implementations' hostname inputs, when the repository has them."""
    path = REPO / "conformance" / "hostnames.json"
    if not path.exists():
        return []
    found = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("input", "given") and isinstance(value, str):
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(json.loads(path.read_text(encoding="utf-8")))
    return [n for n in found if "\n" not in n and "\r" not in n]


def test_parity_with_the_rust_normalize_example(normalize_bin: Path) -> None:
    """``tfdisco.normalize`` / ``for_display`` give byte-identical results
    to ``cargo run -p tfdisco-core --example normalize`` on the 10 000-name
    corpus (and the Go test tables' inputs)."""
    names = _parity_names() + _conformance_names()
    run = subprocess.run(
        [str(normalize_bin)],
        input="\n".join(names).encode("utf-8") + b"\n",
        capture_output=True,
        timeout=120,
        check=True,
    )
    lines = run.stdout.decode("utf-8").splitlines()
    assert len(lines) == len(names)
    valid = 0
    for name, line in zip(names, lines):
        rust = json.loads(line)
        assert rust["input"] == name
        try:
            ours = tfdisco.normalize(name)
        except tfdisco.InvalidHostname as e:
            assert rust["comparison"] is None, name
            # The Python message names the input, then gives the Rust text.
            assert str(e).endswith(": " + rust["error"]), (name, str(e), rust["error"])
        else:
            valid += 1
            assert ours == rust["comparison"], name
            assert ours.encode("utf-8") == rust["comparison"].encode("utf-8")
            assert rust["error"] is None
            assert str(tfdisco.Hostname(name)) == ours
        assert tfdisco.is_valid(name) == (rust["comparison"] is not None)
        assert tfdisco.for_display(name) == rust["display"], name
    assert 7_500 <= valid <= 10_000 + len(names)


def test_one_exception_class_per_rust_error_kind() -> None:
    """Every ``ErrorKind`` name of ``core/src/error.rs`` has its class."""
    import re

    from tfdisco import _errors

    source = (REPO / "core" / "src" / "error.rs").read_text(encoding="utf-8")
    kinds = set(re.findall(r'ErrorKind::\w+ => "(\w+)"', source))
    assert "invalid_hostname" in kinds and "tls" in kinds
    for kind in sorted(kinds):
        cls = _errors._BY_KIND.get(kind)
        assert cls is not None, f"no exception class for kind {kind!r}"
        assert issubclass(cls, tfdisco.Error) and cls.kind == kind
        assert getattr(tfdisco, cls.__name__) is cls and cls.__name__ in tfdisco.__all__
        error = _errors._make(kind, "message", None, None)
        assert type(error) is cls and error.kind == kind and str(error) == "message"
    unknown = _errors._make("something_new", "m", "https://x/", 500)
    assert type(unknown) is tfdisco.Error and unknown.kind == "something_new"
    assert (unknown.url, unknown.status) == ("https://x/", 500)
