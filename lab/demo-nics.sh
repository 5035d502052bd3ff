#!/bin/sh
# demo-nics.sh - what `make demo-nics` runs after building: QEMU guests whose ports are
# emulated NICs with real Linux drivers (docs/nics.md), one per kernel and NIC model,
# plans/nic-compare.yaml (XDP_DROP, XDP_PASS, XDP_TX, a redirect to the same driver and
# one to veth) run on all of them through the coordinator, and the table a driver
# developer posts: driver x action rows, a column per kernel, the receive path's guest
# instructions per frame (rx.ns_per_frame, icount) with the XDP mode used, then the
# program's own cost (prog.ns_per_run). The lab is taken down on exit (also on failure
# or ^C).
#
# Kernels: Debian's generic flavour, which drives all three models (a cloud kernel has no
# e1000e: lab/lab would boot its generic sibling for that model, and the table would
# have a column per flavour). BPFLAB_DEMO_KERNELS and BPFLAB_DEMO_NICS override the
# lists; kernels are fetched once and cached in /var/cache/bpflab/kernels. The results
# stay in /tmp/bpflab-demo-nics.db (BPFLAB_DEMO_DB) for `bpflab --db FILE result ...`.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
lab="$top/lab/lab"
name=${BPFLAB_DEMO_NAME:-demon}
kernels=${BPFLAB_DEMO_KERNELS:-6.1.0-47-amd64,6.12.117+deb12-amd64}
db=${BPFLAB_DEMO_DB:-/tmp/bpflab-demo-nics.db}
nics=${BPFLAB_DEMO_NICS:-virtio-net-pci,vmxnet3,e1000e}
bpflab="$top/build/bin/bpflab"

cleanup() { "$lab" down --name "$name" --purge >/dev/null 2>&1 || true; }
"$lab" down --name "$name" >/dev/null 2>&1 || true
trap cleanup EXIT
trap 'exit 130' INT TERM

sh "$top/scripts/deps.sh" guests >/dev/null
t0=$(date +%s)
"$lab" up 0 --kernels "$kernels" --nics "$nics" --name "$name" --subnet 249
. "${BPFLAB_LAB_DIR:-/tmp/bpflab-lab-$name}/env"
export BPFLAB_COORDINATOR BPFLAB_KEY BPFLAB_SERVER_KEY
"$bpflab" host list
out=$("$bpflab" run submit "$top/plans/nic-compare.yaml" --wait)
echo "$out" | tail -n 1
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
rm -f "$db"
sqlite3 "${BPFLAB_LAB_DIR:-/tmp/bpflab-lab-$name}/bpflab.db" ".backup '$db'"
echo
"$bpflab" result show "$run" --form drivers --subject b
echo
"$bpflab" result show "$run" --form drivers --metric prog.ns_per_run
echo
echo "demo-nics: $(($(date +%s) - t0)) s; the run stays in $db:"
echo "    build/bin/bpflab --db $db result show $run --form drivers --subject b"
