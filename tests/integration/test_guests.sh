#!/bin/bash
# test_guests.sh - hosts that are QEMU guests booting real Debian kernels (docs/kernels.md):
# three guests with three kernels register with the lab's coordinator, each reports its
# own kernel.release and timing "icount"; the quickstart plan, shortened, runs on all of
# them through coordinator and agents, and results come back per kernel. Prints the
# boot time, the whole time and the icount figures (prog.ns_per_run = guest instructions
# per program run) per kernel and repetition, which must repeat exactly.
#
# Skips (exit 0, "skipped: ...") when BPFLAB_SKIP_GUESTS=1, when the guest packages cannot
# be installed, or when the kernel packages cannot be fetched. Kernels are cached in
# $BPFLAB_KERNEL_CACHE (default /var/cache/bpflab/kernels) between runs;
# BPFLAB_TEST_KERNELS overrides the comma-separated list.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guests.sh"
kernels=${BPFLAB_TEST_KERNELS:-6.1.0-47-cloud-amd64,6.1.0-53-cloud-amd64,6.12.117+deb12-cloud-amd64}

guests_require
IFS=, read -r -a klist <<< "$kernels"
guests_fetch_kernels "kernels '$kernels'" "${klist[@]}"
"$top/lab/kernels" list

guests_make_tmp
guests_lab_up "$kernels" BPFLAB_GUEST_TIMEOUT="${BPFLAB_GUEST_TIMEOUT:-150}"
echo "all ${#klist[@]} guests registered ${guests_boot_s} s after 'lab up'"

# --- every guest registered, with its own kernel and timing icount
cli -j host list > "$tmp/hosts.json"
python3 - "$tmp/hosts.json" "$kernels" <<'PY' && ok "guests registered, one per kernel, timing icount" || fail "guests in 'host list' do not match the kernels"
import json, sys
hosts = json.load(open(sys.argv[1]))
hosts = hosts.get("hosts", hosts) if isinstance(hosts, dict) else hosts
want = sys.argv[2].split(",")
got = {h["name"]: h for h in hosts}
rels = []
for i, k in enumerate(want, 1):
    h = got[f"g{i}"]
    inv = h["inventory"]
    assert h["state"] in ("idle", "busy"), h["state"]
    assert inv["kernel"]["release"] == k, (k, inv["kernel"]["release"])
    assert inv["timing"] == "icount", inv.get("timing")
    assert inv["kernel"]["release"] != __import__("os").uname().release
    assert [p["driver"] for p in inv["ports"]][:2] == ["veth", "veth"], inv["ports"]
    rels.append(inv["kernel"]["release"])
    print(f"  g{i}: {rels[-1]} timing {inv['timing']} config {str(inv['kernel'].get('config_sha256'))[:12]}")
assert len(set(rels)) == len(want), rels
PY

# --- the quickstart plan on all guests, shortened
t_run=$(date +%s.%N)
out=$(timeout 300 "$bpflab" $([ -n "${BPFLAB_KEY:-}" ] || echo --plaintext) run submit "$top/plans/quickstart.yaml" -s traffic.duration=500ms \
	-s traffic.warmup=200ms -s repeat=2 --wait)
run_s=$(echo "$(date +%s.%N) - $t_run" | bc)
echo "$out"
echo "run took ${run_s} s"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "run submitted and waited for (run '$run')" test -n "$run"
njobs=$((3 * 2 * ${#klist[@]}))
check "$njobs jobs (3 variants x 2 reps x ${#klist[@]} guests), all done" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done' AND $planned")" = "$njobs"
rels=$(sql "SELECT count(DISTINCT e.kernel_release) FROM jobs j JOIN host_envs e ON e.id = j.env_id
	WHERE j.run_id=$run")
check "jobs ran on ${#klist[@]} distinct kernel releases ($rels)" test "$rels" = "${#klist[@]}"
for k in "${klist[@]}"; do
	# tx runs two programs (xdp_tx on b, xdp_drop on a): 2 + 2 + 2 x 2 samples, of the
	# planned jobs (a repetition added for a disturbed one has its own)
	n=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id
		JOIN host_envs e ON e.id = j.env_id WHERE j.run_id=$run AND j.$planned
		AND e.kernel_release='$k' AND s.metric='prog.ns_per_run' AND s.window='cost' AND s.seq IS NULL AND s.value > 0")
	check "kernel $k: every program of every job measured prog.ns_per_run ($n of 8)" test "$n" = 8
	n=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id
		JOIN host_envs e ON e.id = j.env_id WHERE j.run_id=$run AND j.$planned
		AND e.kernel_release='$k' AND s.metric='port.rx_pps' AND s.subject='b' AND s.seq IS NULL AND s.value > 0")
	check "kernel $k: every job received frames on port b ($n of 6)" test "$n" = 6
done

# --- the icount figures: guest instructions per program run, per kernel and repetition
echo "prog.ns_per_run under icount (guest instructions per run), per kernel, variant, program, rep:"
sql "SELECT e.kernel_release, j.variant, s.subject, j.rep, printf('%.3f', s.value) FROM samples s
	JOIN jobs j ON j.id = s.job_id JOIN host_envs e ON e.id = j.env_id
	WHERE j.run_id=$run AND s.metric='prog.ns_per_run' AND s.window='cost' AND s.seq IS NULL
	ORDER BY e.kernel_release, j.variant, s.subject, j.rep" | column -t -s '|'
# repetitions of one (kernel, variant, program) give the same count to the last bit (the
# agent reports the interrupt-free count under icount: agent/costslice.h); 4 programs a
# kernel: drop's, pass's and tx's two
spread=$(sql "SELECT max((mx - mn) / mn) FROM (SELECT max(s.value) mx, min(s.value) mn
	FROM samples s JOIN jobs j ON j.id = s.job_id JOIN host_envs e ON e.id = j.env_id
	WHERE j.run_id=$run AND s.metric='prog.ns_per_run' AND s.window='cost' AND s.seq IS NULL
	GROUP BY e.kernel_release, j.variant, s.subject)")
exact=$(sql "SELECT count(*) FROM (SELECT count(DISTINCT s.value) d FROM samples s
	JOIN jobs j ON j.id = s.job_id JOIN host_envs e ON e.id = j.env_id
	WHERE j.run_id=$run AND s.metric='prog.ns_per_run' AND s.window='cost' AND s.seq IS NULL
	GROUP BY e.kernel_release, j.variant, s.subject) WHERE d = 1")
echo "icount: largest relative spread between repetitions $spread; $exact of $((4 * ${#klist[@]})) (kernel, variant, program) series repeat exactly"
check "icount figures repeat exactly: $exact of $((4 * ${#klist[@]})) (kernel, variant, program) series, spread $spread" \
	test "$exact" = "$((4 * ${#klist[@]}))"

cli result show "$run" > "$tmp/table.txt" && cat "$tmp/table.txt"
for ((i = 1; i <= ${#klist[@]}; i++)); do
	check "result table has a group for guest g$i" grep -q "g$i" "$tmp/table.txt"
done

guests_finish
