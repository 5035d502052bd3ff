#!/bin/sh
# run-integration.sh - run every tests/integration/test_*.sh (each brings up and tears down
# its own lab in a box); print "N passed, N failed" and exit non-zero when any failed.
# Needs root. TESTS="a b" runs only those.
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0; fail=0; failed=""
for t in ${TESTS:-$(ls "$top"/tests/integration/test_*.sh)}; do
	[ -f "$t" ] || t="$top/tests/integration/$t"
	echo "=== $(basename "$t")"
	if timeout 900 bash "$t"; then
		pass=$((pass + 1)); echo "--- PASS $(basename "$t")"
	else
		fail=$((fail + 1)); failed="$failed $(basename "$t")"; echo "--- FAIL $(basename "$t")"
	fi
done
echo
[ -n "$failed" ] && echo "integration: failed:$failed"
echo "integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
