"""The deterministic hostname corpus of the Rust benchmarks
(``benches/src/hostnames.rs``, ``corpus(n)``), generated the same way:
about half already normalized, a fifth in mixed case or with ports, a
sixth international, the rest invalid. Used by the parity test and by
``bench.py``.
"""

from __future__ import annotations

from typing import List, Sequence, TypeVar

_T = TypeVar("_T")
_MASK = (1 << 64) - 1

WORDS = (
    "registry", "terraform", "opentofu", "app", "tfe", "internal", "example", "corp",
    "platform", "mirror", "eu-west-1", "prod", "build", "modules", "cdn", "int",
)
GOOD_PORTS = (":443", ":8443", ":081", ":65535")
BAD_PORTS = (":0", ":+80", ":99999", ":http")
TLDS = ("com", "io", "org", "net", "de", "co.uk")
UNICODE_WORDS = ("münchen", "испытание", "bücher", "faß", "例え", "δοκιμή", "ÉCOLE", "ｅｘａｍｐｌｅ")


class _Rng:
    """xorshift64*, as ``benches/src/rng.rs``."""

    def __init__(self, seed: int) -> None:
        self.state = (seed | 1) & _MASK

    def next(self) -> int:
        x = self.state
        x ^= x >> 12
        x ^= (x << 25) & _MASK
        x ^= x >> 27
        self.state = x
        return (x * 0x2545F4914F6CDD1D) & _MASK

    def below(self, n: int) -> int:
        return self.next() % n

    def pick(self, items: Sequence[_T]) -> _T:
        return items[self.below(len(items))]


def _capitalize(label: str) -> str:
    if not label:
        return label
    first = label[0]
    return (first.upper() if first.isascii() else first) + label[1:]


def _one(rng: _Rng) -> str:
    labels = 1 + rng.below(3)
    name: List[str] = [rng.pick(WORDS) for _ in range(labels)]
    name.append(rng.pick(TLDS))
    kind = rng.below(100)
    if kind < 50:
        pass
    elif kind < 60:
        name = [_capitalize(label) for label in name]
    elif kind < 70:
        name[-1] += rng.pick(GOOD_PORTS)
    elif kind < 86:
        name[0] = rng.pick(UNICODE_WORDS)
    elif kind < 90:
        name[0] += "_"
    elif kind < 94:
        name.insert(1, "")
    elif kind < 97:
        name[0] = "xn--mnchen-3ya"
    else:
        name[-1] += rng.pick(BAD_PORTS)
    return ".".join(name)


def corpus(n: int = 10_000) -> List[str]:
    """``n`` hostnames as users type them, the same on every run."""
    rng = _Rng(0x7F4A7C15)
    return [_one(rng) for _ in range(n)]
