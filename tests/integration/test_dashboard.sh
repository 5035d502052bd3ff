#!/bin/bash
# test_dashboard.sh - the dashboard (docs/dashboard.md) in a real browser on a lab in a box
# with real runs: the lab's bpflabd serving it under a token (lab/lab up --http
# --http-token), run A (tests/data/plans/compare-a.yaml) to its end, run B
# (compare-b.yaml) submitted without --wait, `bpflab serve` over the lab's database, and
# tests/browser/dashboard.py drives headless chromium through selenium: live progress of
# run B on /runs with no reload on both (bpflabd's signed in with ?token=, its cookie
# then carrying the polling), run A's page, history, compare, hosts, bisect, a 404, the
# token; numbers against the CLI's -j (that file says what each check compares).
# Screenshots of every page go to build/screenshots/ (BPFLAB_SCREENSHOTS to put them
# elsewhere).
#
# Needs Debian's chromium, chromium-driver and python3-selenium (`sh scripts/deps.sh
# browser`, which `make check` runs); without them, or when chromium cannot start, the
# test skips with the reason. Debian's python3 (/usr/bin/python3): selenium is in its
# dist-packages, not in another python3 that may come first in PATH.
. "$(dirname "$0")/lib.sh"

py=/usr/bin/python3
shots=${BPFLAB_SCREENSHOTS:-$top/build/screenshots}
for f in /usr/bin/chromium /usr/bin/chromedriver; do
	[ -x "$f" ] || skip_test "no $f (sh scripts/deps.sh browser installs it)"
done
"$py" -c 'import selenium' 2>/dev/null ||
	skip_test "no python3-selenium for $py (sh scripts/deps.sh browser installs it)"

tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"
pids=()
# the server and the browser go also when the test fails: by pid, and chromium by its
# profile's path in this test's own $tmp
dash_cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true
	done
	for p in $(pgrep -f -- "--user-data-dir=$tmp/profile" || true); do
		kill "$p" 2>/dev/null || true
	done
}
# then lib.sh's on_exit with the test's status (set -e off: a failing status must not
# end the trap before the lab goes down)
dash_exit() {
	local rc=$?
	set +e
	dash_cleanup
	(exit "$rc")
	on_exit
}
trap dash_exit EXIT

t0=$SECONDS
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$tmp/token"
echo >> "$tmp/token"
lab_start 1 --http 127.0.0.1:0 --http-token "$tmp/token"
live_url=$(cat "$BPFLAB_LAB_DIR/http-url")
check "bpflabd serves the dashboard ($live_url)" test -n "$live_url"
plans="$top/tests/data/plans"
short=(-s traffic.duration=500ms -s traffic.warmup=200ms)
submit() { # PLAN [--wait] -> run id
	local out
	out=$("$bpflab" run submit "$1" "${short[@]}" "${@:2}" --timeout 30)
	printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1
}
ra=$(submit "$plans/compare-a.yaml" --wait)
check "run A ($ra) done after $((SECONDS - t0)) s" \
	test "$(sql "SELECT state FROM runs WHERE id=${ra:-0}")" = "done"

# bpflab serve on a free port, its URL into $tmp/url
serve() {
	setsid "$bpflab" serve --db "$LAB_DB" --http 127.0.0.1:0 > "$tmp/url" 2>&1 &
	pids+=($!)
	wait_for 10 grep -qs '^http://' "$tmp/url" || { cat "$tmp/url"; return 1; }
}
check "bpflab serve starts" serve
url=$(grep -m 1 '^http://' "$tmp/url")

rb=$(submit "$plans/compare-b.yaml")
check "run B ($rb) submitted, not waited for" test -n "$rb"

mkdir -p "$shots"
rm -f "$shots"/dashboard-*.png
rc=0
setsid "$py" "$top/tests/browser/dashboard.py" --url "$url" --live-url "$live_url" \
	--token "$tmp/token" --db "$LAB_DB" --bpflab "$bpflab" --run-a "$ra" --run-b "$rb" \
	--shots "$shots" --profile "$tmp/profile" > "$tmp/browser.out" 2>&1 &
pids+=($!)
wait "${pids[-1]}" || rc=$?
cat "$tmp/browser.out"
[ "$rc" != 77 ] || skip_test "$(grep '^chromium cannot start' "$tmp/browser.out")"
check "the browser checks passed ($(grep -c '^ok: ' "$tmp/browser.out") ok, \
$(grep -c '^FAIL: ' "$tmp/browser.out") failed)" test "$rc" = 0
while read -r line; do
	skip_note "check: ${line#skip: }"
done < <(grep '^skip: ' "$tmp/browser.out")
shots_n=$(find "$shots" -name "dashboard-*.png" | wc -l)
check "screenshots in $shots ($shots_n)" test "$shots_n" -ge 10
dash_cleanup
nothing_left() {
	! pgrep -f -- "--user-data-dir=$tmp/profile|serve --db $LAB_DB" >/dev/null
}
check "no server or browser left" wait_for 5 nothing_left
echo "test_dashboard: $((SECONDS - t0)) s"
finish
