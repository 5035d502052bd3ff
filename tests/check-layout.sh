#!/bin/sh
# check-layout.sh - the layout rules of docs/architecture.md ("Layout"), checked on the tree:
#
#   1. a source file includes lib/ headers as "folder/name.h", and only from the folders
#      its own folder may use (the table below, the same as in docs/architecture.md);
#   2. no circle between the files of one folder: file A calling a function of file B
#      while B (or a file B calls, and so on) calls A. Read from the symbols of the built
#      objects (nm), so it sees calls, not only includes;
#   3. each field of the coordinator's state is written by its owner file only
#      (tests/check-owners.py);
#   4. no source file (agent, bench, cli, coordinator, lib, web, bpf) and no file of
#      tests/unit over 900 lines (the tree's rule).
#
# Usage: sh tests/check-layout.sh [BUILD]   (BUILD defaults to build; make unit/check run it)
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}

may_include() {
	case "$1" in
	lib/base)     echo "base" ;;
	lib/analysis) echo "base analysis" ;;
	lib/plan)     echo "base plan" ;;
	lib/proto)    echo "base plan proto" ;;
	lib/store)    echo "base analysis plan proto store" ;;
	lib/report)   echo "base analysis report" ;;
	agent)        echo "base analysis plan proto" ;;
	coordinator)  echo "base analysis plan proto store" ;;
	web)          echo "base analysis plan proto store report" ;;
	*)            echo "base analysis plan proto store report" ;;
	esac
}

fail=0
lib_headers=$(cd lib && ls */*.h | sed 's|.*/||')
for dir in lib/base lib/analysis lib/plan lib/proto lib/store lib/report agent coordinator cli \
	   web tests/unit tests/fuzz bench; do
	allowed=$(may_include "$dir")
	for f in "$dir"/*.[ch]; do
		[ -f "$f" ] || continue
		grep -n '^#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
			inc=$(printf '%s\n' "$line" | sed 's/^[0-9]*:#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
			case "$inc" in
			*/*)
				top=${inc%%/*}
				[ -d "lib/$top" ] || continue
				case " $allowed " in
				*" $top "*) ;;
				*) echo "$f:${line%%:*}: includes $inc: $dir may include only lib/{$allowed}" ;;
				esac ;;
			*)
				if printf '%s\n' $lib_headers | grep -qx "$inc" && [ ! -f "$dir/$inc" ]; then
					echo "$f:${line%%:*}: includes \"$inc\" without its folder (lib/*/$inc)"
				fi ;;
			esac
		done
	done
done > "$BUILD/layout-includes.txt"
if [ -s "$BUILD/layout-includes.txt" ]; then
	cat "$BUILD/layout-includes.txt"; fail=1
fi

# Calls between the objects of one folder: "A B" = A.o uses a symbol B.o defines.
for dir in lib/base lib/analysis lib/plan lib/proto lib/store lib/report agent coordinator cli \
	   web; do
	objdir="$BUILD/obj/$dir"
	[ -d "$objdir" ] || { echo "check-layout: $objdir: not built (run make first)"; exit 2; }
	for o in "$objdir"/*.o; do
		nm --defined-only -g "$o" | awk -v m="$(basename "$o" .o)" 'NF == 3 { print $3, m }'
	done | sort > "$BUILD/layout-defs.txt"
	for o in "$objdir"/*.o; do
		nm -u "$o" | awk -v m="$(basename "$o" .o)" '{ print $NF, m }'
	done | sort > "$BUILD/layout-uses.txt"
	join "$BUILD/layout-uses.txt" "$BUILD/layout-defs.txt" |
		awk '$2 != $3 { print $2, $3 }' | sort -u > "$BUILD/layout-edges.txt"
	if ! tsort "$BUILD/layout-edges.txt" >/dev/null 2>"$BUILD/layout-loop.txt"; then
		echo "$dir: files that call each other in a circle (A B = A calls B):"
		sed -n 's/^tsort: //p' "$BUILD/layout-loop.txt" | grep -v 'input contains a loop' |
			sort -u > "$BUILD/layout-nodes.txt"
		awk 'NR == FNR { in_loop[$1] = 1; next } ($1 in in_loop) && ($2 in in_loop) {
			print "    " $0 }' "$BUILD/layout-nodes.txt" "$BUILD/layout-edges.txt"
		fail=1
	fi
done
# 3. each field of the coordinator's state is written only by the file that owns it
#    (coordinator/coord_priv.h, coord.h); the check checked on known writes first
python3 tests/check-owners.py --self-test || fail=1
python3 tests/check-owners.py || fail=1
# 4. files of one job: no source or unit test file over MAX_LINES lines
MAX_LINES=900
for f in $(find agent bench cli coordinator lib web bpf tests/unit -name '*.[ch]' | sort); do
	n=$(wc -l < "$f")
	if [ "$n" -gt $MAX_LINES ]; then
		case "$f" in
		tests/unit/*) how="split it by theme (a shared fixture in tests/unit/*_fixture.c)" ;;
		*) how="split it into files of one job each" ;;
		esac
		echo "$f: $n lines, over $MAX_LINES: $how"
		fail=1
	fi
done
rm -f "$BUILD"/layout-defs.txt "$BUILD"/layout-uses.txt "$BUILD"/layout-edges.txt "$BUILD"/layout-loop.txt "$BUILD"/layout-nodes.txt
[ $fail -eq 0 ] && echo "layout: includes and calls follow docs/architecture.md; files at most $MAX_LINES lines"
exit $fail
