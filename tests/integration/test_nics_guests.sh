#!/bin/bash
# test_nics_guests.sh - NIC ports of real drivers (docs/nics.md): one Debian kernel, two
# emulated NIC models (virtio-net-pci: virtio_net, native XDP; vmxnet3: vmxnet3, generic
# XDP only before Linux 6.6), a guest each (`lab/lab up --kernels K --nics M1,M2`), run
# through the coordinator. Checks:
#   - each guest's ports a-d carry the model's driver, on a PCI bus, with queues; e, f veth;
#   - the XDP modes the agent found (native + generic on virtio_net, generic only on
#     vmxnet3 of 6.1, found by trying: 6.1 has no netdev netlink family);
#   - `mode: native` on vmxnet3 is refused at submit, naming port, driver and modes;
#   - drop and pass (mode auto) on both: rx.ns_per_frame (guest instructions per frame on
#     b's receive path) near-exact on repetition, and prog.ns_per_run exact (spread 0).
#     rx.ns_per_frame is not exact: a poll's fixed part spreads over the frames it got,
#     and how many it gets depends on when the paced generator's frames arrive, which
#     icount does not fix. Measured (docs/nics.md): 0.3-2 % of the mean (max - min over
#     3 repetitions) on a quiet machine, 4.4 % beside a kernel build: the bound is 5 %;
#   - the two drivers' costs differ by more than their spreads;
#   - virtio_net's own XDP drop counter (ethtool -S, nic.*) agrees with the frames the
#     generator sent (within 2 %), and rx.frames with port b's received frames;
#   - result show --form drivers prints the driver x kernel table.
# Skips (exit 0) only when guests cannot run here or the kernel cannot be fetched.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guests.sh"
kernel=${BPFLAB_TEST_NIC_KERNEL:-6.1.0-47-cloud-amd64}

guests_require
guests_fetch_kernels -q "kernel '$kernel'" "$kernel"
guests_make_tmp
lab_stop
t0=$(date +%s)
"$top/lab/lab" up 0 --kernels "$kernel" --nics virtio-net-pci,vmxnet3 --name "$LAB_NAME" \
	--subnet "$LAB_SUBNET"
echo "two NIC guests registered $(($(date +%s) - t0)) s after 'lab up'"
# shellcheck source=/dev/null
. "$BPFLAB_LAB_DIR/env"
export BPFLAB_COORDINATOR BPFLAB_KEY BPFLAB_SERVER_KEY

# --- drivers, bus, queues and XDP modes in the inventory
cli -j host list > "$tmp/hosts.json"
python3 - "$tmp/hosts.json" <<'PY' && ok "inventory: drivers, bus, queues and XDP modes per model" || fail "inventory of the NIC guests"
import json, sys
hosts = json.load(open(sys.argv[1]))
hosts = hosts.get("hosts", hosts) if isinstance(hosts, dict) else hosts
got = {h["name"]: h["inventory"] for h in hosts}
want = {"g1": ("virtio_net", ["native", "generic"]), "g2": ("vmxnet3", ["generic"])}
for g, (drv, modes) in want.items():
    ports = {p["role"]: p for p in got[g]["ports"]}
    for r in "abcd":
        p = ports[r]
        assert p["driver"] == drv, (g, r, p)
        assert p.get("bus", "").startswith("0000:"), (g, r, p)
        assert p.get("rx_queues", 0) >= 1, (g, r, p)
    for r in "ef":
        assert ports[r]["driver"] == "veth", (g, r, ports[r])
    xdp = ports["b"].get("xdp", {})
    print(f"  {g}: {drv} bus {ports['b']['bus']} queues {ports['b'].get('rx_queues')}/"
          f"{ports['b'].get('tx_queues')} ring {ports['b'].get('rx_ring', '-')} speed "
          f"{ports['b'].get('speed', '-')} xdp {xdp}")
    assert sorted(xdp.get("modes", [])) == sorted(modes), (g, xdp)
PY

# --- native on a generic-only driver: refused at submit
cat > "$tmp/native.yaml" <<'YAML'
name: nic-native
hosts:
  match: {port.driver: vmxnet3}
ports: [a, b]
traffic: {generator: udp, from: a, rate: 5000, duration: 300ms, warmup: 100ms}
variants:
  drop:
    - {port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o, program: xdp_drop}
metrics: [port.rx_pps]
YAML
rc=0
cli run submit "$tmp/native.yaml" > "$tmp/native.out" 2>&1 || rc=$?
check "mode native on vmxnet3 refused at submit (exit $rc): $(cat "$tmp/native.out")" \
	grep -q "port 'b' (port-b, vmxnet3) has XDP modes generic; the plan asks native" "$tmp/native.out"
check "nothing was queued for the refused plan" test "$(sql "SELECT count(*) FROM runs")" = 0

# --- drop and pass on both drivers, mode auto
cat > "$tmp/nics.yaml" <<'YAML'
name: nic-test
hosts:
  count: all
ports: [a, b, c, d, e, f]
traffic:
  generator: udp
  from: a
  packet: {size: 64, proto: udp4, flows: 1}
  rate: 10000
  duration: 1s
  warmup: 300ms
variants:
  drop:
    - {port: b, hook: xdp, mode: auto, object: xdp_basic.bpf.o, program: xdp_drop}
  pass:
    - {port: b, hook: xdp, mode: auto, object: xdp_basic.bpf.o, program: xdp_pass}
repeat: 3
metrics: [rx.ns_per_frame, prog.ns_per_run, port.rx_pps, gen.tx_pps]
YAML
t_run=$(date +%s)
out=$(timeout 900 "$bpflab" $([ -n "${BPFLAB_KEY:-}" ] || echo --plaintext) run submit "$tmp/nics.yaml" --wait 2>&1) || true
echo "$out" | tail -n 3
echo "run took $(($(date +%s) - t_run)) s"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "run submitted and waited for (run '$run')" test -n "$run"
check "12 jobs (2 variants x 3 reps x 2 guests), all done" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=${run:-0} AND state='done' AND $planned")" = 12

# figure METRIC SUBJECT: "host variant n min max mean" per host and variant
figures() {
	sql "SELECT h.name, j.variant, count(*), min(s.value), max(s.value), avg(s.value)
		FROM samples s JOIN jobs j ON j.id = s.job_id JOIN hosts h ON h.id = j.host_id
		WHERE j.run_id=${run:-0} AND s.metric='$1' AND s.subject='$2' AND s.seq IS NULL
		GROUP BY h.name, j.variant ORDER BY h.name, j.variant"
}
figures rx.ns_per_frame b > "$tmp/rx.txt"
figures prog.ns_per_run xdp_drop > "$tmp/prog.txt"
figures prog.ns_per_run xdp_pass >> "$tmp/prog.txt"
echo "rx.ns_per_frame of b (guest instructions per frame, icount): host|variant|n|min|max|mean"
sed 's/^/    /' "$tmp/rx.txt"
echo "prog.ns_per_run (guest instructions per run): host|variant|n|min|max|mean"
sed 's/^/    /' "$tmp/prog.txt"
python3 - "$tmp/rx.txt" "$tmp/prog.txt" <<'PY' && ok "rx.ns_per_frame within 5 % on repetition, prog.ns_per_run exact, drivers differ" || fail "the receive-path figures (above)"
import sys
def rows(path):
    out = {}
    for line in open(path):
        h, v, n, lo, hi, mean = line.strip().split("|")
        out[(h, v)] = (int(n), float(lo), float(hi), float(mean))
    return out
rx, prog = rows(sys.argv[1]), rows(sys.argv[2])
# 3 planned repetitions, more where the agent found one disturbed (its icount
# figures stand: a repetition added is measured the same way)
for k in [("g1", "drop"), ("g1", "pass"), ("g2", "drop"), ("g2", "pass")]:
    n, lo, hi, mean = rx[k]
    assert n >= 3 and lo > 0, (k, rx[k])
    spread = (hi - lo) / mean
    print(f"  {k[0]} {k[1]}: rx.ns_per_frame {mean:.1f}, spread {100 * spread:.2f} %")
    assert spread <= 0.05, (k, rx[k])
    n, lo, hi, mean = prog[k]
    assert n >= 3 and lo == hi, (k, prog[k])
for v in ("drop", "pass"):
    a, b = rx[("g1", v)], rx[("g2", v)]
    # the two drivers' figures: apart by more than both spreads together
    assert a[1] > b[2] or b[1] > a[2], (v, a, b)
PY

# --- virtio_net's own XDP drop counter against the frames the generator sent
drops=$(sql "SELECT avg(s.value) FROM samples s JOIN jobs j ON j.id = s.job_id JOIN hosts h ON
	h.id = j.host_id WHERE j.run_id=${run:-0} AND h.name='g1' AND j.variant='drop' AND s.seq IS NULL
	AND s.metric LIKE 'nic.rx%xdp_drops' AND s.subject='b'")
sent=$(sql "SELECT avg(s.value) FROM samples s JOIN jobs j ON j.id = s.job_id JOIN hosts h ON
	h.id = j.host_id WHERE j.run_id=${run:-0} AND h.name='g1' AND j.variant='drop' AND s.seq IS NULL
	AND s.metric='gen.tx_pps'")
check "virtio_net's xdp_drops counter ($drops/s) agrees with the frames sent ($sent/s) within 2 %" \
	python3 -c "import sys; d, s = float('${drops:-0}'), float('${sent:-0}'); sys.exit(0 if s > 0 and abs(d - s) <= 0.02 * s else 1)"
bad=$(sql "SELECT count(*) FROM samples f JOIN samples p ON p.job_id = f.job_id AND p.seq IS NULL
	AND p.metric='rx.port_frames' AND p.subject='b' JOIN jobs j ON j.id = f.job_id
	WHERE j.run_id=${run:-0} AND f.metric='rx.frames' AND f.subject='b' AND f.seq IS NULL
	AND abs(f.value - p.value) > 0.02 * p.value")
check "rx.frames agrees with port b's received frames in every job ($bad off by more than 2 %)" test "$bad" = 0

# --- the table a driver developer posts
cli result show "${run:-0}" --form drivers > "$tmp/table.txt" 2>&1 || true
sed 's/^/    /' "$tmp/table.txt"
check "result show --form drivers has a row per driver" \
	sh -c "grep -q '^virtio_net' '$tmp/table.txt' && grep -q '^vmxnet3' '$tmp/table.txt'"
guests_finish
