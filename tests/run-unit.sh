#!/bin/sh
# run-unit.sh - run each cmocka unit test binary given, then print the totals of the
# individual tests as "unit: N passed, N failed" and exit non-zero when any failed
# (a binary that crashes or exits non-zero without a cmocka summary counts as one
# failure). Each binary gets at most BPFLAB_UNIT_TIMEOUT seconds (default 300): one that
# hangs is killed and counted as a failure instead of stalling the whole check.
pass=0; fail=0; failed=""
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in "$@"; do
	timeout -k 10 "${BPFLAB_UNIT_TIMEOUT:-300}" "$t" > "$out" 2>&1
	rc=$?
	cat "$out"
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] &&
		echo "unit: $(basename "$t") did not finish within ${BPFLAB_UNIT_TIMEOUT:-300} s: killed"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
	pass=$((pass + ${p:-0}))
	if [ "$rc" -ne 0 ]; then
		n=${f:-0}
		[ "$n" -eq 0 ] && n=1
		fail=$((fail + n))
		failed="$failed $(basename "$t")"
	fi
done
echo
[ -n "$failed" ] && echo "unit: failing programs:$failed"
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
