#!/bin/sh
# run-unit.sh - run each cmocka unit test binary given, then print the totals of the
# individual tests as "unit: N passed, N failed, N skipped" and exit non-zero when any
# failed (a binary that crashes or exits non-zero without a cmocka summary counts as one
# failure). Each binary gets at most BPFLAB_UNIT_TIMEOUT seconds (default 300): one that
# hangs is killed and counted as a failure instead of stalling the whole check.
#
# Skipped tests are counted per binary and listed with their reason: the line
# "  skip: WHY" or "  skip (host): WHY" that tests/unit/helpers.h's skip helpers print
# before cmocka's "[  SKIPPED ] NAME". Run as root, a skip is a failure unless its
# reason is the host's ("skip (host)": a missing kernel feature, one CPU, ...): a test
# that needs root must run then, and a skip without a reason is a failure too.
pass=0; fail=0; skipped=0; failed=""; skips=""
root=0; [ "$(id -u)" -eq 0 ] && root=1
out=$(mktemp)
sk=$(mktemp)
trap 'rm -f "$out" "$sk"' EXIT
for t in "$@"; do
	name=$(basename "$t")
	timeout -k 10 "${BPFLAB_UNIT_TIMEOUT:-300}" "$t" > "$out" 2>&1
	rc=$?
	cat "$out"
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] &&
		echo "unit: $name did not finish within ${BPFLAB_UNIT_TIMEOUT:-300} s: killed"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
	# "TEST<TAB>REASON" per skipped test: the reason line between the test's
	# "[ RUN      ]" and its "[  SKIPPED ]" (the summary's list repeats the names)
	awk '
		/^\[ RUN      \] / { cur = substr($0, 14); why = ""; next }
		/^  skip( \(host\))?: / { if (cur != "") why = substr($0, 3); next }
		/^\[  SKIPPED \] / && cur != "" && substr($0, 14) == cur {
			print cur "\t" (why != "" ? why : "skip: (no reason given)"); cur = ""
		}' "$out" > "$sk"
	s=$(wc -l < "$sk")
	bad=0
	if [ "$s" -gt 0 ]; then
		echo "unit: $name: $s skipped"
		while IFS='	' read -r test why; do
			echo "unit:   $test: $why"
			skips="$skips
  $name $test: $why"
			if [ "$root" -eq 1 ] && [ "${why#skip (host): }" = "$why" ]; then
				echo "unit:   $test: skipped while running as root: a failure"
				bad=$((bad + 1))
			fi
		done < "$sk"
	fi
	pass=$((pass + ${p:-0}))
	skipped=$((skipped + s))
	if [ "$rc" -ne 0 ] || [ "$bad" -gt 0 ]; then
		n=${f:-0}
		[ "$rc" -ne 0 ] && [ "$n" -eq 0 ] && n=1
		fail=$((fail + n + bad))
		failed="$failed $name"
	fi
done
echo
[ -n "$skips" ] && echo "unit: skipped tests:$skips"
[ -n "$failed" ] && echo "unit: failing programs:$failed"
echo "unit: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
