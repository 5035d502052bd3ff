#!/bin/sh
# demo-kernels.sh - what `make demo-kernels` runs after building: a lab in a box whose
# hosts are three QEMU guests booting three real Debian kernels (docs/kernels.md), the
# quickstart plan run on all of them through the coordinator (5 repetitions, short
# traffic), and the compare table of prog.ns_per_run grouped by kernel.release against
# the oldest kernel. Under icount the figures are guest instructions per program run,
# so they repeat almost exactly. The lab is taken down on exit (also on failure or ^C).
#
# BPFLAB_DEMO_KERNELS overrides the comma-separated kernel list (the first is the
# baseline); kernels are fetched once and cached in /var/cache/bpflab/kernels.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
lab="$top/lab/lab"
name=${BPFLAB_DEMO_NAME:-demok}
kernels=${BPFLAB_DEMO_KERNELS:-6.1.0-47-cloud-amd64,6.1.0-53-cloud-amd64,6.12.117+deb12-cloud-amd64}
baseline=${kernels%%,*}
bpflab="$top/build/bin/bpflab"

cleanup() { "$lab" down --name "$name" --purge >/dev/null 2>&1 || true; }
"$lab" down --name "$name" >/dev/null 2>&1 || true
trap cleanup EXIT
trap 'exit 130' INT TERM

sh "$top/scripts/deps.sh" guests >/dev/null
t0=$(date +%s)
"$lab" up 0 --kernels "$kernels" --name "$name" --subnet 250
# the lab's state directory as lab/lab has it (BPFLAB_LAB_DIR when set)
. "${BPFLAB_LAB_DIR:-/tmp/bpflab-lab-$name}/env"
export BPFLAB_COORDINATOR BPFLAB_KEY BPFLAB_SERVER_KEY
"$bpflab" host list
"$bpflab" run submit "$top/plans/quickstart.yaml" -s repeat=5 -s traffic.duration=500ms \
	-s traffic.warmup=200ms --wait
echo
"$bpflab" result compare --plan quickstart --metric prog.ns_per_run --by kernel.release \
	--baseline "$baseline"
echo "demo-kernels: $(($(date +%s) - t0)) s"
