#!/bin/sh
# run-unit.sh - run each cmocka unit test binary given; print a summary line
# "N passed, N failed" and exit non-zero when any failed.
pass=0; fail=0; failed=""
for t in "$@"; do
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $(basename "$t")"; fi
done
echo
[ -n "$failed" ] && echo "unit: failed:$failed"
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
