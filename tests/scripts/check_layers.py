#!/usr/bin/env python3
"""The layering test (DESIGN.md, "Layers"): every #include "..." of the library, the kernels, the
command line and the bindings points at its own floor or one below, never up.

Floors, bottom to top:
  0 base        src/base/            errors, progress, run settings, triangle index, tile plans
  1 kernels     kernels/             device code behind plain launcher headers
  2 backend     src/backend/         one interface per capability; cpu/ and cuda/ implement them
  3 capability  src/context/, src/pcc/, src/graph/, src/dfc/, src/modules/, src/centrality/,
                src/partial/, src/lfcd/
  4 api         src/api/             the extern "C" entry points
The public header (include/fastconn/) may be included from every floor. The command line
(tools/) and the bindings (bindings/) are clients: they include only the public header and their
own files. Kernels include no library header at all besides other kernels.

Prints each offending include as FILE:LINE: "included" (floor of the file -> floor of the include)
and exits 1; exits 0 when there is none. --self-test builds a small tree with one upward include
of each kind in a temporary folder and checks that every one is reported.
"""
import os
import re
import sys
import tempfile

FLOORS = [("src/base/", 0, "base"), ("kernels/", 1, "kernels"), ("src/backend/", 2, "backend"),
          ("src/context/", 3, "capability"), ("src/pcc/", 3, "capability"), ("src/graph/", 3, "capability"),
          ("src/dfc/", 3, "capability"), ("src/modules/", 3, "capability"), ("src/centrality/", 3, "capability"),
          ("src/partial/", 3, "capability"), ("src/lfcd/", 3, "capability"),
          ("src/api/", 4, "api")]
CLIENTS = ("tools/", "bindings/")
SOURCE = re.compile(r"\.(c|cc|cpp|cu|h|hpp|cuh|i)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def floor_of(path):
    for prefix, level, name in FLOORS:
        if path.startswith(prefix):
            return level, name
    return None


def resolve(root, including, target):
    """The repository-relative path an include names: beside the including file, then from
    src/, the repository root and include/ (the library's include directories)."""
    for base in (os.path.dirname(including), "src", "", "include"):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate.replace(os.sep, "/")
    return None


def check(root):
    problems = []
    for top in ("src", "kernels", "tools", "bindings"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not SOURCE.search(name):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m:
                            why = judge(root, path, m.group(1))
                            if why:
                                problems.append(f'{path}:{number}: "{m.group(1)}" {why}')
    return problems


def judge(root, path, target):
    """Why this include breaks the layering, or None."""
    resolved = resolve(root, path, target)
    if resolved is None:
        # (generated headers: fastconn_version.h lives in the build folder)
        return None if target.startswith("fastconn/") or target == "fastconn_version.h" else \
            "names no file of the repository"
    if resolved.startswith("include/fastconn/"):
        return None
    if path.startswith(CLIENTS):
        client = path.split("/")[0] + "/" + path.split("/")[1] + "/"
        return None if resolved.startswith(client) else \
            f"(a client, {client}, includes only the public header and its own files: this is {resolved})"
    mine, theirs = floor_of(path), floor_of(resolved)
    if mine is None:
        return None
    if theirs is None:
        return f"(floor {mine[1]} includes {resolved}, which is on no floor)"
    if mine[1] == "kernels" and theirs[1] != "kernels":
        return f"(kernels include no library header: this is {resolved}, floor {theirs[1]})"
    if theirs[0] > mine[0]:
        return f"(floor {mine[1]} includes floor {theirs[1]}: {resolved} is above it)"
    return None


def self_test():
    cases = {
        "src/base/a.hpp": '#include "pcc/b.hpp"\n',            # base -> capability
        "src/backend/c.hpp": '#include "modules/d.hpp"\n',     # backend -> capability
        "kernels/e.cuh": '#include "base/f.hpp"\n',            # kernels -> library
        "src/pcc/b.hpp": '#include "api/g.hpp"\n',             # capability -> api
        "tools/cli/h.cpp": '#include "base/f.hpp"\n',          # client -> library
        "src/modules/d.hpp": '#include "backend/c.hpp"\n#include "base/f.hpp"\n',  # allowed
        "src/base/f.hpp": "",
        "src/api/g.hpp": '#include "pcc/b.hpp"\n',             # allowed
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in cases.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        found = check(root)
        expected = ["src/base/a.hpp:1", "src/backend/c.hpp:1", "kernels/e.cuh:1", "src/pcc/b.hpp:1",
                    "tools/cli/h.cpp:1"]
        got = sorted(p.split(": ")[0] for p in found)
        if got != sorted(expected):
            print("check_layers self-test FAILED: expected", sorted(expected), "got", got)
            for p in found:
                print("  ", p)
            return 1
    print(f"check_layers self-test: the {len(expected)} upward includes reported, the allowed ones not")
    return 0


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    root = os.path.abspath(root)
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) point up a floor (see DESIGN.md, Layers)")
        return 1
    print("check_layers: every include of src/, kernels/, tools/ and bindings/ stands on its floor")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
