#!/bin/sh
# demo.sh - what `make demo` runs after building: bring up a 2-host lab in a box, run
# plans/quickstart.yaml on it, print the result table, and take the lab down again (also
# when something fails or the user presses ^C). Each host's noise floor is measured first
# (`bpflab host calibrate`; BPFLAB_DEMO_CALIBRATE=0 skips it), so that the table prints
# every spread beside the floor of its host. The coordinator serves the dashboard
# (docs/dashboard.md) on 127.0.0.1:8080, or the next free port up to 8099
# (BPFLAB_DEMO_HTTP=ADDR:PORT to choose): its address is printed before anything is
# submitted, to watch the runs live; at the end, the `bpflab serve` command that serves
# the demo's database after the lab is down.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
lab="$top/lab/lab"
name=${BPFLAB_DEMO_NAME:-demo}
hosts=${BPFLAB_DEMO_HOSTS:-2}
calibrate=${BPFLAB_DEMO_CALIBRATE:-1}
subnet=${BPFLAB_DEMO_SUBNET:-0}		# management subnet 198.18.K.0/24 (lab/lab --subnet)
# the binaries of another build dir with BPFLAB_BIN (lab/lab takes them from there too)
export BPFLAB_BIN=${BPFLAB_BIN:-$top/build/bin}
bpflab="$BPFLAB_BIN/bpflab"

# the first of 127.0.0.1:8080..8099 nothing listens on (ss: iproute2, as lab/lab's ip)
free_port() {
	local p
	for p in $(seq 8080 8099); do
		[ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] || { echo "127.0.0.1:$p"; return 0; }
	done
	echo "demo: no free port in 127.0.0.1:8080..8099 for the dashboard (BPFLAB_DEMO_HTTP=ADDR:PORT)" >&2
	return 1
}
http=${BPFLAB_DEMO_HTTP:-$(free_port)}

cleanup() { "$lab" down --name "$name" || true; }
"$lab" down --name "$name" >/dev/null 2>&1 || true
trap cleanup EXIT
trap 'exit 130' INT TERM

"$lab" up "$hosts" --name "$name" --subnet "$subnet" --http "$http"
dir=${BPFLAB_LAB_DIR:-/tmp/bpflab-lab-$name}
. "$dir/env"
export BPFLAB_COORDINATOR
url=$(cat "$dir/http-url")
[ "$http" = 127.0.0.1:8080 ] || [ -n "${BPFLAB_DEMO_HTTP:-}" ] ||
	echo "demo: 127.0.0.1:8080 is taken; the dashboard is on $http"
# before anything is submitted: the calibration runs and the plan's run show there live
echo "dashboard (live while this demo runs): ${url}runs"
echo

"$bpflab" plan check "$top/plans/quickstart.yaml"
if [ "$calibrate" != 0 ]; then
	i=1
	while [ "$i" -le "$hosts" ]; do
		"$bpflab" host calibrate "h$i"
		echo
		i=$((i + 1))
	done
fi
out=$("$bpflab" run submit "$top/plans/quickstart.yaml" --wait)
printf '%s\n' "$out"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
[ -n "$run" ] || { echo "demo: could not read the run id from: $out" >&2; exit 1; }
echo
"$bpflab" result show "$run"
# The lab goes down with this script; its database stays (lab/lab down keeps it), and
# `bpflab serve` serves it read-only (docs/dashboard.md).
echo
echo "dashboard: ${url}runs/$run until the lab goes down (now); after it:"
echo "           $bpflab serve --db $dir/bpflab.db --http $http"
echo "           then ${url}runs/$run"
