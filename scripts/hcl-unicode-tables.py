#!/usr/bin/env python3
"""Writes config/src/hcl_syntax/unicode.rs: the ID_Start and ID_Continue
characters of HCL's scanner, as code point ranges.

    python3 scripts/hcl-unicode-tables.py HCL_CHECKOUT/hclsyntax/unicode_derived.rl

HCL's scanner (hclsyntax/scan_tokens.rl) includes unicode_derived.rl, which
lists Unicode 9.0's ID_Start and ID_Continue as alternatives of UTF-8 byte
ranges. This script takes every valid UTF-8 encoding those alternatives
match and writes the code points as sorted, merged ranges, so identifiers
are the same characters as in Terraform's parser (HCL v2.23.0 has the same
file as every release since v2.0.0).
"""

import re
import sys
from itertools import product

OUT = __file__.replace("scripts/hcl-unicode-tables.py", "config/src/hcl_syntax/unicode.rs")


def parse(path):
    tables = {}
    current = None
    for raw in open(path, encoding="utf-8"):
        line = raw.split("#", 1)[0].strip()
        m = re.match(r"(\w+)\s*=\s*$", line)
        if m:
            current = tables.setdefault(m.group(1), [])
            continue
        if current is None or not line or line in (";", "}%%", "%%{"):
            continue
        if line.startswith("machine"):
            continue
        line = line.lstrip("|").strip().rstrip(";").strip()
        if not line:
            continue
        items = []
        for item in line.split():
            if ".." in item:
                lo, hi = item.split("..")
                items.append((int(lo, 16), int(hi, 16)))
            else:
                items.append((int(item, 16), int(item, 16)))
        current.append(items)
    return tables


def code_points(alternatives):
    points = set()
    for items in alternatives:
        ranges = []
        for i, (lo, hi) in enumerate(items):
            if i > 0:
                lo, hi = max(lo, 0x80), min(hi, 0xBF)
            if lo > hi:
                ranges = None
                break
            ranges.append(range(lo, hi + 1))
        if ranges is None:
            continue
        for seq in product(*ranges):
            try:
                text = bytes(seq).decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(text) == 1:
                points.add(ord(text))
    return points


def merged(points):
    out = []
    for p in sorted(points):
        if out and out[-1][1] + 1 == p:
            out[-1][1] = p
        else:
            out.append([p, p])
    return out


def main():
    tables = parse(sys.argv[1])
    lines = [
        "//! The characters HCL's scanner takes in identifiers: Unicode 9.0's",
        "//! ID_Start and ID_Continue, as `hclsyntax/unicode_derived.rl` lists them.",
        "//! Written by `scripts/hcl-unicode-tables.py`; do not edit.",
        "",
    ]
    for name, doc in (("ID_Start", "start"), ("ID_Continue", "continue")):
        ranges = merged(code_points(tables[name]))
        const = name.upper()
        lines.append(f"/// The code points that may {doc} an identifier (besides `_` and `-`), as")
        lines.append("/// inclusive ranges, sorted.")
        lines.append(f"pub(super) const {const}: &[(u32, u32)] = &[")
        for lo, hi in ranges:
            lines.append(f"    (0x{lo:04X}, 0x{hi:04X}),")
        lines.append("];")
        lines.append("")
    with open(OUT, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
