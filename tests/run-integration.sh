#!/bin/sh
# run-integration.sh - run every tests/integration/test_*.sh (each brings up and tears down
# its own lab in a box); print "N passed, N failed, N skipped" and exit non-zero when any
# failed. Needs root. TESTS="a b" runs only those; BPFLAB_IT_TIMEOUT: seconds a test may
# take (900).
#
# A test that skips (lib.sh's skip_test: guests that cannot run here) counts as skipped,
# not passed; one that leaves out a check (skip_check: other labs up) passes, and both
# are listed with their reason at the end. They write them to $BPFLAB_IT_SKIPS.
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0; fail=0; skipped=0; failed=""; skips=""
notes=$(mktemp)
trap 'rm -f "$notes"' EXIT
for t in ${TESTS:-$(ls "$top"/tests/integration/test_*.sh)}; do
	[ -f "$t" ] || t="$top/tests/integration/$t"
	name=$(basename "$t")
	echo "=== $name"
	: > "$notes"
	if BPFLAB_IT_SKIPS="$notes" timeout "${BPFLAB_IT_TIMEOUT:-900}" bash "$t"; then
		if grep -q '^test: ' "$notes"; then
			skipped=$((skipped + 1)); echo "--- SKIP $name"
		else
			pass=$((pass + 1)); echo "--- PASS $name"
		fi
	else
		fail=$((fail + 1)); failed="$failed $name"; echo "--- FAIL $name"
	fi
	while read -r line; do
		case "$line" in
		test:*) skips="$skips
  $name skipped: ${line#test: }" ;;
		check:*) skips="$skips
  $name left out a check: ${line#check: }" ;;
		esac
	done < "$notes"
done
echo
[ -n "$skips" ] && echo "integration: skips:$skips"
[ -n "$failed" ] && echo "integration: failed:$failed"
echo "integration: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
