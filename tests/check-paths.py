#!/usr/bin/env python3
"""check-paths.py - every path of this tree named in a tracked file exists.

A comment, doc or script that names `lib/store/store_ingest.c` or `bench/ndr` must name a
file that is there: moved files leave such names behind. Checked on every tracked source,
script and doc; a name is found when it starts with one of the top-level folders. Accepted:
  - an existing file or folder, or a glob (`tests/unit/test_*.c`) that matches one;
  - a name without its extension (`bench/ndr` for bench/ndr.sh, a built binary's source);
  - placeholders in capitals (`plans/NAME.yaml`, `schema/NNN_*.sql`) read as `*`;
  - a built BPF object (`bpf/x.bpf.o`) whose source bpf/x.bpf.c exists.
Not checked: #include lines (<bpf/libbpf.h> is libbpf's), C code outside comments (its
strings are test data), and the paths of other trees listed in EXTERNAL. Usage: python3 tests/check-paths.py   (make unit and make check run it)
"""
import glob
import os
import re
import subprocess
import sys

TOP_DIRS = "agent|coordinator|cli|web|lib|bpf|plans|schema|tests|lab|bench|docs|scripts|dist"
NAME = re.compile(r"(?<![\w./$-])((?:%s)/[A-Za-z0-9_.*/-]*[A-Za-z0-9_*])" % TOP_DIRS)
PLACEHOLDER = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9-]*[A-Z0-9](?![a-z0-9])")
EXTERNAL = (
    "scripts/kconfig/",                     # the kernel tree's, named by lab/kbuild
    "lib/modules",                          # a kernel's module tree
    "bpf/bpf_helpers.h", "bpf/bpf_endian.h", "bpf/libbpf.h", "bpf/bpf.h",  # libbpf's
    "tests/fuzz/corpus-run/",               # made by tests/fuzz/run.sh
)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
SCANNED = re.compile(r"(\.(c|h|sh|md|py|yaml|sql)|Makefile|^lab/lab|^\.ci/run)$")


def exists(name):
    name = PLACEHOLDER.sub("*", name)
    if name.startswith(EXTERNAL):
        return True
    if name.endswith(".bpf.o"):
        name = name[:-2] + ".c"
    candidates = [name, name + ".*"]
    if name[-1] in "0123456789_":    # a prefix: tests/unit/test_, schema/007
        candidates.append(name + "*")
    return any(glob.glob(c) for c in candidates)


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    bad = 0
    for f in files:
        if not SCANNED.search(f) or not os.path.isfile(f) or f == "tests/check-paths.py":
            continue
        try:
            text = open(f, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        if f.endswith((".c", ".h")):    # C: comments only (strings are test data)
            text = "".join(x if COMMENT.fullmatch(x) else re.sub(r"[^\n]", " ", x)
                           for x in re.split(r"(/\*.*?\*/|//[^\n]*)", text, flags=re.S))
        for n, line in enumerate(text.splitlines(), 1):
            if re.match(r"\s*#\s*include", line):
                continue
            for m in NAME.finditer(line):
                if not exists(m.group(1)):
                    print(f"{f}:{n}: names {m.group(1)}, which is not in the tree")
                    bad += 1
    if bad:
        print(f"check-paths: {bad} name(s) of missing paths", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
