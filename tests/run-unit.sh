#!/bin/sh
# run-unit.sh - run each cmocka unit test binary given, then print the totals of the
# individual tests as "unit: N passed, N failed" and exit non-zero when any failed
# (a binary that crashes or exits non-zero without a cmocka summary counts as one
# failure).
pass=0; fail=0; failed=""
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in "$@"; do
	"$t" > "$out" 2>&1
	rc=$?
	cat "$out"
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
