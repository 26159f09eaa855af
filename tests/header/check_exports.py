#!/usr/bin/env python3
"""The dynamic symbols libfastconn.so defines are exactly the FC_API functions of fastconn.h.

A symbol exported but not declared is a private name leaking into the ABI (it would then have to
stay forever); a function declared but not exported fails only at a consumer's link time.
Usage: check_exports.py NM HEADER LIBRARY
"""
import re
import subprocess
import sys


def header_functions(path):
    """Names of the functions fastconn.h declares, and those it declares without FC_API."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)   # comments
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)    # preprocessor lines
    exported, unmarked = set(), set()
    for statement in text.split(";"):
        if "(" not in statement or re.search(r"\btypedef\b", statement):
            continue
        # the declared name is the identifier right before the first "("
        match = re.match(r"[^(]*?\b(\w+)\s*\(", statement)
        if not match or not match.group(1).startswith("fc_"):
            continue
        (exported if re.search(r"\bFC_API\b", statement) else unmarked).add(match.group(1))
    return exported, unmarked


def library_symbols(nm, path):
    """Defined dynamic symbols (name -> nm type letter), version suffixes and nodes removed."""
    out = subprocess.run([nm, "-D", "--defined-only", path], check=True, capture_output=True, text=True).stdout
    symbols = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1].split("@")[0]
        if kind == "A":  # the version node itself (FASTCONN_0), not a symbol anyone links to
            continue
        symbols[name] = kind
    return symbols


def main():
    # usage: check_exports.py NM HEADER... LIBRARY (every public header that declares FC_API functions)
    nm, headers, library = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
    header = " + ".join(headers)
    declared, unmarked = set(), set()
    for path in headers:
        d, u = header_functions(path)
        declared |= d
        unmarked |= u
    exported = library_symbols(nm, library)
    problems = []
    if len(declared) < 10:
        problems.append(f"parsed only {len(declared)} FC_API functions from {header}: the parser is broken")
    for name in sorted(unmarked):
        problems.append(f"{name} is declared in the header without FC_API")
    for name in sorted(declared - exported.keys()):
        problems.append(f"{name} is declared in the header but not exported by {library}")
    for name in sorted(exported.keys() - declared):
        problems.append(f"{name} ({exported[name]}) is exported but not declared in the header")
    for name in sorted(declared & exported.keys()):
        if exported[name] != "T":
            problems.append(f"{name} is exported as nm type {exported[name]}, not as a function (T)")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"{len(declared)} functions: header declarations and exported symbols match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
