#!/bin/bash
# make-tree.sh - a real kernel tree to bisect (docs/kernels.md, "Building a kernel from a
# tree"): Debian's linux-source-6.12 unpacked into a git repository, one base commit,
# and eight commits on top (tag bpflab-demo), the fifth of which plants a regression
# on the XDP path; the others change unrelated files (documentation, comments, another
# driver). Cached: made once, then only its path is printed.
#
#   lab/kbuild/make-tree.sh [DIR]      DIR default $BPFLAB_SRC_DIR/linux-6.12
#                                      ($BPFLAB_SRC_DIR default /var/cache/bpflab/src)
#
# Prints DIR. Tags: bpflab-base (the unpacked source), bpflab-planted (the regression),
# bpflab-demo (the top). Commits have fixed authors and dates, so their ids are the same
# on every machine with the same linux-source-6.12 (its version, e.g. 6.12.118, is the
# tree's: another one gives other ids and releases; a tree made once stays at the
# version it was made from). The regression: the x86 JIT makes every XDP program clear four
# scratch registers on entry, four more guest instructions per packet inside the window
# that bpf_stats times, so `prog.ns_per_run` of any XDP plan under icount (guest
# instructions per run, exact) rises by 4. The commits are made without touching the
# working tree (a build may be running in it): git plumbing on a temporary index.
set -euo pipefail

src_dir=${BPFLAB_SRC_DIR:-/var/cache/bpflab/src}
dir=${1:-$src_dir/linux-6.12}
tarball=${BPFLAB_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
die() { echo "make-tree: $*" >&2; exit 1; }
export GIT_AUTHOR_NAME=bpflab GIT_AUTHOR_EMAIL=bpflab@localhost
export GIT_COMMITTER_NAME=bpflab GIT_COMMITTER_EMAIL=bpflab@localhost
g() { git -C "$dir" "$@"; }

if g rev-parse -q --verify refs/tags/bpflab-demo >/dev/null 2>&1; then
	echo "$dir"
	exit 0
fi
command -v git >/dev/null || die "git is missing: sh scripts/deps.sh kbuild"

# the base: the source as Debian ships it (its .gitignore ignores every top-level path,
# hence add -f), one commit
if ! g rev-parse -q --verify refs/tags/bpflab-base >/dev/null 2>&1; then
	if [ ! -d "$dir/.git" ]; then
		[ -f "$tarball" ] || die "no '$tarball': sh scripts/deps.sh kbuild"
		[ ! -e "$dir" ] || die "'$dir' exists and is not a git repository; remove it"
		echo "make-tree: unpacking $tarball into $dir" >&2
		# what a crash of an earlier run left half-unpacked (maybe of another
		# linux-source-6.12 version) is not built on: $dir appears only by the rename
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		tar -xJf "$tarball" -C "$dir.tmp" --strip-components=1
		git -C "$dir.tmp" init -q -b bpflab
		git -C "$dir.tmp" add -A -f
		GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
			git -C "$dir.tmp" commit -q -m "linux-source-6.12 $(sed -n 's/^SUBLEVEL = /6.12./p' "$dir.tmp/Makefile") (Debian)"
		mv "$dir.tmp" "$dir"
	fi
	g tag bpflab-base "$(g rev-list --max-parents=0 HEAD | head -n 1)"
fi

export GIT_INDEX_FILE
GIT_INDEX_FILE=$(mktemp)
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
g read-tree bpflab-base
parent=$(g rev-parse bpflab-base)
n=0
# FILE SED-SCRIPT MESSAGE: one commit on top of $parent changing FILE by SED-SCRIPT
commit() {
	local file=$1 script=$2 msg=$3 blob tree
	n=$((n + 1))
	blob=$(g show "$parent:$file" | sed -e "$script" | g hash-object -w --stdin)
	[ "$blob" != "$(g rev-parse "$parent:$file")" ] || die "commit $n: '$script' changes nothing in $file"
	g update-index --cacheinfo "100644,$blob,$file"
	tree=$(g write-tree)
	parent=$(GIT_AUTHOR_DATE="2026-01-0${n}T12:00:00Z" GIT_COMMITTER_DATE="2026-01-0${n}T12:00:00Z" \
		g commit-tree "$tree" -p "$parent" -m "$msg")
}
commit Documentation/networking/xdp-rx-metadata.rst '$a\
\
The metadata kfuncs are also reachable from programs attached in native mode to veth.' \
	"Documentation: xdp-rx-metadata: say that veth offers the kfuncs"
commit drivers/net/dummy.c 's|^/\* dummy.c: a dummy net driver|/* dummy.c: a dummy network driver|' \
	"net: dummy: spell out 'network' in the header comment"
commit drivers/net/veth.c 's|^ \*  drivers/net/veth.c$| *  drivers/net/veth.c: virtual ethernet pairs|' \
	"veth: name the pair in the header comment"
commit README '$a\
\
Guest kernels for bpflab are built out of tree (O=) from this source.' \
	"README: say how bpflab builds guest kernels"
# the regression: four more instructions on every XDP program run
commit arch/x86/net/bpf_jit_comp.c '/^	ilen = prog - temp;$/{
i\
	/* XDP programs start with clean scratch registers: nothing of the\
	 * caller'"'"'s argument registers reaches the program.\
	 */\
	if (bpf_prog->type == BPF_PROG_TYPE_XDP && !bpf_is_subprog(bpf_prog) &&\
	    !bpf_prog->aux->exception_cb) {\
		EMIT2(0x31, 0xF6);		/* xor esi, esi */\
		EMIT2(0x31, 0xD2);		/* xor edx, edx */\
		EMIT2(0x31, 0xC9);		/* xor ecx, ecx */\
		EMIT3(0x45, 0x31, 0xC0);	/* xor r8d, r8d */\
	}\

:a
n
ba
}' "bpf, x86: clear the scratch registers on entry of XDP programs"
planted=$parent
commit Documentation/bpf/index.rst '$a\
\
bpflab bisects kernels built from this tree; see its docs/kernels.md.' \
	"Documentation: bpf: point to a benchmark that bisects kernel trees"
commit kernel/bpf/syscall.c '0,/^#include <linux\/bpf.h>$/s//#include <linux\/bpf.h>	\/* bpf_prog, bpf_map *\//' \
	"bpf: say what syscall.c takes from linux/bpf.h"
commit drivers/net/dummy.c 's|^#define DRV_NAME	"dummy"|#define DRV_NAME	"dummy"	/* as ethtool -i reports it */|' \
	"net: dummy: say where DRV_NAME shows"
[ "$n" = 8 ] || die "made $n commits, not 8"
# -f: a run that stopped between the two tags made the same commits (fixed dates and
# authors); bpflab-demo, tagged last, says the tree is finished
g tag -f bpflab-planted "$planted" >/dev/null
g tag bpflab-demo "$parent"
echo "make-tree: $dir: bpflab-base $(g rev-parse --short=12 bpflab-base), 8 commits up to tag bpflab-demo, the regression $(g rev-parse --short=12 bpflab-planted)" >&2
echo "$dir"
