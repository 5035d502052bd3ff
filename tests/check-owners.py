#!/usr/bin/env python3
"""check-owners.py - each field of the coordinator's state is written by its owner only.

coordinator/coord_priv.h (struct coord, struct coord_agent) and coordinator/coord.h
(struct coord_stats) name the owner of each field in an `owner: FILE.c` comment before
it; the comment holds for the fields after it, up to the next one. A field may be a part
(a struct of its own, `a->job`): every field inside the part is then the part's owner's,
and the part's struct says the same owner in the comment before it.
This script finds the writes in coordinator/*.c and reports each one outside its owner:

  - `X->FIELD OP` (OP: = += -= *= /= %= &= |= ^= <<= >>= ++ --) and `++X->FIELD`, with
    array indexes and member chains after FIELD (`c->specs[i].text =`,
    `a->job.id = 0`, `c->stats.results++`);
  - `&X->FIELD` (a pointer through which it could be written), unless it initialises a
    pointer to const declared on that line;
  - X is `c` for struct coord (the coordinator's files always call it so), or a name
    declared `struct coord_agent *X` somewhere in coordinator/ (a, b, peer, lost, ...).

What it does not see: a write through a pointer to a field that reached another file,
through a cast, or by a receiver named otherwise (`(*pp)->...`); docs/architecture.md
("State") says what to review by hand.

Usage: python3 tests/check-owners.py [ROOT | --self-test]  (run by tests/check-layout.sh,
so by make unit and make check; --self-test runs the check on a copy of the headers and
a file of known writes). Exit status 1 on a write outside its owner, 2 when the headers
cannot be read as described.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.relpath(sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "--self-test"
                       else os.path.join(HERE, ".."))
COORD = os.path.join(ROOT, "coordinator")
# (header, struct, receiver kind): the structs whose fields have owners
STRUCTS = (("coord_priv.h", "coord", "coord"), ("coord_priv.h", "coord_agent", "agent"),
           ("coord.h", "coord_stats", "stats"))
OWNER = re.compile(r"owner:\s*([\w.]+\.c)\b")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
OPS = r"(?:<<=|>>=|\+\+|--|[-+*/%&|^]=|=(?!=))"
INDEX = r"(?:\s*\[[^\]]*\])*"
CHAIN = r"(?:\s*(?:\.|->)\s*\w+" + INDEX + r")*"
PART_OWNER = {}
# `struct coord_agent *a` and the names after it in one declaration (`, *b, *next`)
AGENT_DECL = re.compile(r"struct coord_agent\s*\*\s*(?:const\s+)?(\w+)\s*"
                        r"((?:(?:=[^,;()]*)?,\s*\*\s*\w+\s*)*)[;,)=\[]")
CONST_PTR = re.compile(r"\bconst\s+(?:struct\s+)?\w+\s*\*\s*(?:const\s+)?\w+\s*=\s*&[^;]*;")


def fail(msg, code=2):
    print("check-owners: " + msg)
    sys.exit(code)


def struct_fields(path, name):
    """{field: owner} of struct NAME in PATH, from its `owner:` comments."""
    text = open(path).read()
    # the parts' own structs say their owner in the comment before them
    for c in re.finditer(r"/\*\s*owner:\s*([\w.]+\.c)\b[^*]*(?:\*(?!/)[^*]*)*\*/\n"
                         r"(?:#define[^\n]*\n)*struct (\w+) \{", text):
        PART_OWNER[c.group(2)] = c.group(1)
    m = re.search(r"^struct %s \{\n" % name, text, re.M)
    if not m:
        fail("%s: no 'struct %s {' at the start of a line" % (path, name))
    # the body, comments blanked (same length), and where each owner: comment starts
    blank = COMMENT.sub(lambda c: re.sub(r"[^\n]", " ", c.group(0)), text)
    owners = [(c.start(), o.group(1)) for c in COMMENT.finditer(text, m.end())
              for o in [OWNER.search(c.group(0))] if o]
    fields, depth, start, pos = {}, 1, m.end(), m.end()
    while depth:
        if pos >= len(blank):
            fail("%s: struct %s does not end" % (path, name))
        ch = blank[pos]
        depth += ch == "{"
        depth -= ch == "}"
        if depth == 1 and ch == ";" or depth == 0:
            decl = re.sub(r"\{.*\}", " ", blank[start:pos], flags=re.S)
            owner = ([o for p, o in owners if p < pos] or [None])[-1]
            line = text.count("\n", 0, pos) + 1
            t = re.match(r"\s*struct\s+(\w+)\s+\w+\s*$", decl)
            if t and owner and PART_OWNER.get(t.group(1), owner) != owner:
                fail("%s:%d: struct %s says owner %s, its member in struct %s owner %s"
                     % (path, line, t.group(1), PART_OWNER[t.group(1)], name, owner))
            for d in decl.split(","):
                n = re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", d.strip())
                if not n:
                    continue
                if not owner:
                    fail("%s:%d: field '%s' of struct %s has no owner: comment before it"
                         % (path, line, n.group(1), name))
                fields[n.group(1)] = owner
            start = pos + 1
        pos += 1
    return fields


def main():
    if not os.path.isdir(COORD):
        fail("%s: no such folder" % COORD)
    owned = {kind: struct_fields(os.path.join(COORD, h), s) for h, s, kind in STRUCTS}
    files = sorted(glob.glob(os.path.join(COORD, "*.c")))
    names = {os.path.basename(f) for f in files}
    for kind, fields in owned.items():
        for field, owner in fields.items():
            if owner not in names:
                fail("owner '%s' of %s.%s is not a file of coordinator/" % (owner, kind, field))
    sources = {f: COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), open(f).read())
               for f in files + glob.glob(os.path.join(COORD, "*.h"))}
    agents = set()
    for text in sources.values():
        for m in AGENT_DECL.finditer(text):
            agents.add(m.group(1))
            agents.update(re.findall(r"\*\s*(\w+)", m.group(2)))
    receivers = {"coord": ["c"], "agent": sorted(agents)}

    def write_re(recv, field, chain=CHAIN):
        head = r"(?<![\w.>])(?:%s)\s*->\s*%s\b" % ("|".join(recv), field)
        return re.compile(r"%s%s%s\s*%s|(?:\+\+|--)\s*%s|(?<!&)&\s*%s" %
                          (head, INDEX, chain, OPS, head, head))

    checks = []
    for kind in ("coord", "agent"):
        for field, owner in owned[kind].items():
            # c->stats as a whole is coord.c's; its counters are checked one by one
            chain = "" if (kind, field) == ("coord", "stats") else CHAIN
            checks.append((write_re(receivers[kind], field, chain), "struct %s" % (
                "coord" if kind == "coord" else "coord_agent"), field, owner))
    for field, owner in owned["stats"].items():
        checks.append((write_re(["c"], r"stats\s*\.\s*" + field), "struct coord_stats",
                       field, owner))
    bad = 0
    for f in files:
        base = os.path.basename(f)
        for i, line in enumerate(sources[f].split("\n"), 1):
            if "->" not in line:
                continue
            # a pointer taken to read: `const struct x *p = &a->part.field;`
            line = CONST_PTR.sub("", line)
            for rx, what, field, owner in checks:
                if owner != base and rx.search(line):
                    print("%s:%d: writes %s.%s, which %s owns (its owner: comment in "
                          "coordinator/%s): ask %s through its header" %
                          (os.path.relpath(f, ROOT), i, what, field, owner,
                           "coord.h" if what == "struct coord_stats" else "coord_priv.h",
                           owner))
                    bad += 1
    if bad:
        sys.exit(1)
    n = sum(len(v) for v in owned.values())
    print("owners: the %d fields of the coordinator's state are written by their owners" % n)


# --self-test: each line of BAD must be reported, no line of GOOD
BAD = """\
	a->job.id = 0;
	b->pair.go_job++;
	++c->collect_pass;
	c->stats.results += 2;
	c->specs[3].text = NULL;
	peer->machine.held_by = a;
	r = &c->pending[0];
	lost->name = NULL;
	c->agents = a;
"""
GOOD = """\
	if (a->job.id == 0 && c->stats.results != 1)
	const struct msg_progress *p = &a->sess.progress_of;
	/* a->job.id = 0 in a comment */
	a->sess.connected = false;
	n = c->stats.bad_messages + a->res.spooled;
	x->job.id = 1;
"""


def self_test():
    tmp = tempfile.mkdtemp(prefix="check-owners-")
    try:
        os.makedirs(os.path.join(tmp, "coordinator"))
        for h in ("coord_priv.h", "coord.h"):
            shutil.copy(os.path.join(HERE, "..", "coordinator", h),
                        os.path.join(tmp, "coordinator"))
        for f in ("coord", "core", "dispatch", "results", "link", "boot", "machine",
                  "jobmsg", "zap", "offload", "query", "submit", "clients"):
            open(os.path.join(tmp, "coordinator", f + ".c"), "w").close()
        with open(os.path.join(tmp, "coordinator", "agents.c"), "w") as f:
            f.write("struct coord_agent *a, *b, *peer, *lost;\n" + BAD + GOOD)
        out = subprocess.run([sys.executable, os.path.abspath(__file__), tmp],
                             capture_output=True, text=True)
        lines = {int(l.split(":")[1]) for l in out.stdout.splitlines() if "agents.c:" in l}
        want = set(range(2, 2 + BAD.count("\n")))
        if out.returncode != 1 or lines != want:
            fail("self-test: reported lines %s (exit %d), expected %s:\n%s" %
                 (sorted(lines), out.returncode, sorted(want), out.stdout + out.stderr), 1)
        print("owners: self-test: the %d writes outside their owners were found" % len(want))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    else:
        main()
