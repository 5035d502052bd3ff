#!/bin/sh
# run-integration.sh - run every tests/integration/test_*.sh (each brings up and tears down
# its own lab in a box); print "N passed, N failed, N skipped" and exit non-zero when any
# failed. Needs root. TESTS="a b" runs only those; BPFLAB_IT_TIMEOUT: seconds a test may
# take (900).
#
# A test that skips (lib.sh's skip_test: guests that cannot run here) counts as skipped,
# not passed; one that leaves out a check (skip_check: other labs up) passes, and both
# are listed with their reason at the end. They write them to $BPFLAB_IT_SKIPS.
#
# A failed test's FAIL lines, with the lines before each, are printed again at the end:
# a CI log that keeps only its tail still says what failed and why.
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0; fail=0; skipped=0; failed=""; skips=""
logs=$(mktemp -d)
notes="$logs/notes"
trap 'rm -rf "$logs"' EXIT
for t in ${TESTS:-$(ls "$top"/tests/integration/test_*.sh)}; do
	[ -f "$t" ] || t="$top/tests/integration/$t"
	name=$(basename "$t")
	echo "=== $name"
	: > "$notes"
	# to a file, followed by tail until the test ends: a process the test left behind
	# holding its output cannot keep the suite waiting, as a pipe would
	BPFLAB_IT_SKIPS="$notes" timeout "${BPFLAB_IT_TIMEOUT:-900}" bash "$t" \
		> "$logs/$name.log" 2>&1 &
	pid=$!
	tail -n +1 -f --pid=$pid "$logs/$name.log" &
	tailpid=$!
	wait $pid
	rc=$?
	wait $tailpid
	if [ "$rc" = 0 ]; then
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
for name in $failed; do
	echo "=== what failed in $name"
	if grep -q '^FAIL: ' "$logs/$name.log"; then
		grep -B 6 '^FAIL: ' "$logs/$name.log" | tail -n 60
	else
		tail -n 20 "$logs/$name.log"
	fi
done
[ -n "$skips" ] && echo "integration: skips:$skips"
[ -n "$failed" ] && echo "integration: failed:$failed"
echo "integration: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
