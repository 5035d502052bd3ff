#!/usr/bin/env python3
"""md2man.py - the man pages, made from docs/ so that they are written once.

    python3 dist/md2man.py PAGE OUT

PAGE is one of the PAGES below (bpflab.8, bpflabd.8, bpflab-agent.8, bpflab-plan.5): a
markdown file of docs/, or one of its "## " sections, turned into man(7) roff. The
markdown is the small set docs/ uses: headings, paragraphs, indented or fenced code,
"- " and "1. " lists, tables, `code`, **bold**, [text](link). A table becomes a tagged
list: its first column the tag, the other columns the text ("default: X" for a column
other than "meaning"), so a table of options reads as an OPTIONS list. Called by
dist/install.mk; tests/integration/test_install_tree.sh checks the pages against --help.
"""
import re
import sys

SEE_ALSO = r"""\fBbpflab\fR(8), \fBbpflabd\fR(8), \fBbpflab\-agent\fR(8), \fBbpflab\-plan\fR(5);
the full documentation in /usr/share/doc/bpflab (docs/ of the source tree)"""

# page -> (source, section to take or None for all, sections to leave out, NAME line)
PAGES = {
    "bpflab.8": ("docs/cli.md", None, ("bpflabd", "bpflab-agent"),
                 "bpflab \\- run XDP and tc experiments across a lab of hosts"),
    "bpflabd.8": ("docs/cli.md", "bpflabd", (),
                  "bpflabd \\- the bpflab coordinator"),
    "bpflab-agent.8": ("docs/cli.md", "bpflab-agent", (),
                       "bpflab\\-agent \\- the bpflab agent of a lab host"),
    "bpflab-plan.5": ("docs/plans.md", None, (),
                      "bpflab\\-plan \\- the YAML plan of a bpflab experiment"),
}


def esc(text):
    """Roff-escape plain text (not yet inline-formatted)."""
    return text.replace("\\", "\\e")


def inline(text):
    """Markdown inline spans of one line of text to roff."""
    out = []
    pos = 0
    for m in re.finditer(r"`([^`]+)`", text):
        out.append(inline_plain(text[pos:m.start()]))
        code = esc(m.group(1)).replace("-", "\\-")
        out.append("\\fB" + code + "\\fR")
        pos = m.end()
    out.append(inline_plain(text[pos:]))
    return "".join(out)


def inline_plain(text):
    text = esc(text)
    text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1 (\2)", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"(?<![\w*])\*([A-Za-z][^*]*?)\*(?![\w*])", r"\\fI\1\\fR", text)
    return text


def line_out(text):
    """A text line, protected against reading as a request."""
    text = text.strip()
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def cells(row):
    row = row.strip().strip("|")
    parts = re.split(r"(?<!\\)\|", row)
    return [p.strip().replace("\\|", "|") for p in parts]


def table(rows, out):
    shown = cells(rows[0])
    head = [h.lower() for h in shown]
    for row in rows[2:]:
        c = cells(row)
        out.append(".TP")
        out.append(line_out(inline(c[0])))
        first, rest = [], []
        for h, name, v in zip(head[1:], shown[1:], c[1:]):
            if not v:
                continue
            if h in ("meaning", "when", "commands") or len(head) == 2:
                first.append(inline(v))
            else:
                rest.append(inline(name) + ": " + inline(v))
        if first or rest:
            out.append(line_out("; ".join(first + rest)))


def convert(lines, out, heading_base):
    """Markdown LINES to roff lines appended to OUT. A heading of level heading_base is
    .SH, deeper ones .SS."""
    i = 0
    para = []

    def flush():
        if para:
            out.append(".PP")
            for p in para:
                out.append(line_out(inline(p)))
            para.clear()

    while i < len(lines):
        ln = lines[i].rstrip("\n")
        m = re.match(r"^(#+) (.*)", ln)
        if m:
            flush()
            level = len(m.group(1))
            title = inline(m.group(2))
            out.append((".SH " if level <= heading_base else ".SS ") + '"' +
                       (title.upper() if level <= heading_base else title) + '"')
            i += 1
            continue
        if ln.startswith("```"):
            flush()
            i += 1
            block = []
            while i < len(lines) and not lines[i].startswith("```"):
                block.append(lines[i].rstrip("\n"))
                i += 1
            i += 1
            code(block, out)
            continue
        if ln.startswith("    ") and not para:
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i].rstrip("\n")[4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            code(block, out)
            continue
        if ln.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i].rstrip("\n"))
                i += 1
            table(rows, out)
            out.append(".PP")
            continue
        m = re.match(r"^(\s*)(- |\d+\. )(.*)", ln)
        if m:
            flush()
            item = [m.group(3)]
            indent = len(m.group(1)) + len(m.group(2))
            i += 1
            while i < len(lines) and lines[i].strip() and \
                    lines[i].startswith(" " * indent) and \
                    not re.match(r"^\s*(- |\d+\. )", lines[i]):
                item.append(lines[i].strip())
                i += 1
            tag = "\\(bu" if m.group(2) == "- " else m.group(2).strip()
            out.append(".IP %s 4" % tag)
            for t in item:
                out.append(line_out(inline(t)))
            continue
        if not ln.strip():
            flush()
            i += 1
            continue
        para.append(ln)
        i += 1
    flush()


def code(block, out):
    out.append(".PP")
    out.append(".RS 4")
    out.append(".nf")
    for b in block:
        b = esc(b).replace("-", "\\-")
        out.append("\\&" + b if b else "")
    out.append(".fi")
    out.append(".RE")


def sections(lines):
    """Split LINES at "## " headings: [(title or None, lines)]."""
    parts = [(None, [])]
    for ln in lines:
        m = re.match(r"^## (.*)", ln)
        if m:
            parts.append((m.group(1).strip(), [ln]))
        else:
            parts[-1][1].append(ln)
    return parts


def make(page, version):
    src, only, leave_out, name = PAGES[page]
    with open(src, encoding="utf-8") as f:
        lines = f.readlines()
    title, section = page.rsplit(".", 1)
    out = ['.TH "%s" "%s" "" "bpflab %s" "bpflab"' % (title.upper().replace("-", "\\-"),
                                                     section, version),
           ".ad l", ".SH NAME", name]
    parts = sections(lines)
    if only:
        body = next(p for t, p in parts if t == only)[1:]
    else:
        body = parts[0][1][1:]    # without the "# " title
    # a first code block is the synopsis, the rest the description
    if any(ln.strip() for ln in body) and \
            next(ln for ln in body if ln.strip()).startswith("    "):
        while body and not body[0].strip():
            body.pop(0)
        syn = []
        while body and (body[0].startswith("    ") or not body[0].strip()):
            if body[0].strip():
                syn.append(body[0][4:].rstrip("\n"))
            body.pop(0)
        out.append(".SH SYNOPSIS")
        code(syn, out)
    out.append(".SH DESCRIPTION")
    convert(body, out, 2 if only else 1)
    if not only:
        for t, p in parts[1:]:
            if t in leave_out:
                continue
            convert(p, out, 2)
    out.append(".SH SEE ALSO")
    out.append(SEE_ALSO)
    # .PP right after a heading or before another .PP says nothing; drop it
    clean = []
    for ln in out:
        if ln == ".PP" and clean and (clean[-1].startswith((".SH", ".SS", ".PP", ".TP"))):
            continue
        clean.append(ln)
    return "\n".join(clean) + "\n"


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in PAGES:
        sys.stderr.write("usage: md2man.py PAGE VERSION OUT (PAGE: %s)\n" % ", ".join(PAGES))
        return 2
    text = make(sys.argv[1], sys.argv[2])
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
