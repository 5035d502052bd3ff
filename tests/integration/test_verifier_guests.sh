#!/bin/bash
# test_verifier_guests.sh - verifier statistics across kernels: two QEMU guests booting
# Debian's 6.1.0-47 and 6.12.117 cloud kernels (docs/kernels.md) run
# plans/verifier-across-kernels.yaml (no traffic, `verifier: stats`, 2 repetitions), and
# `result verifier -j` has one group per kernel with every program's verified insns,
# states and JIT'd bytes on both, repeating exactly within a kernel (the verification
# time aside). Prints the veristat-style table (figures for bench/README.md).
#
# Skips (exit 0, "skipped: ...") when BPFLAB_SKIP_GUESTS=1, when the guest packages cannot
# be installed, or when the kernel packages cannot be fetched (cached in
# $BPFLAB_KERNEL_CACHE between runs; BPFLAB_TEST_KERNELS overrides the pair).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guests.sh"
kernels=${BPFLAB_TEST_KERNELS:-6.1.0-47-cloud-amd64,6.12.117+deb12-cloud-amd64}

guests_require
IFS=, read -r -a klist <<< "$kernels"
guests_fetch_kernels -q "kernels '$kernels'" "${klist[@]}"

guests_make_tmp
guests_lab_up "$kernels" BPFLAB_GUEST_TIMEOUT="${BPFLAB_GUEST_TIMEOUT:-150}"
echo "${#klist[@]} guests registered $guests_boot_s s after 'lab up'"

t_run=$(date +%s.%N)
out=$(timeout 600 "$bpflab" $([ -n "${BPFLAB_KEY:-}" ] || echo --plaintext) run submit \
	"$top/plans/verifier-across-kernels.yaml" --wait) || true
echo "$out"
echo "run took $(echo "$(date +%s.%N) - $t_run" | bc) s"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "run submitted and waited for (run '$run')" test -n "$run"
run=${run:-0}
sql "SELECT j.id, h.name, j.variant, j.state, ifnull(j.error, '') FROM jobs j
	JOIN hosts h ON h.id = j.host_id WHERE j.run_id=$run AND j.state <> 'done' ORDER BY j.seq" |
	column -t -s '|'
njobs=$((8 * 2 * ${#klist[@]}))
check "$njobs jobs (8 variants x 2 reps x ${#klist[@]} guests), all done" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done' AND $planned")" = "$njobs"

cli -j result verifier "$run" > "$tmp/v.json"
cli result verifier "$run" | tee "$tmp/v.txt"
check "one group per kernel, in the order of KERNELS or the reverse" \
	test "$(jq -r '.groups | sort | join(",")' "$tmp/v.json")" = "$(printf '%s\n' "${klist[@]}" | sort | paste -sd,)"
check "17 programs, each loaded on both kernels (MATCH)" \
	test "$(jq '[.programs[] | select(.verdict == "MATCH" and ([.groups[].verdict] | unique) == ["success"])] | length' "$tmp/v.json")" = 17
check "verified insns > 0 and states on both kernels for every program" \
	test "$(jq '[.programs[].groups[] | select((.values["verifier.insns"] // 0) > 0 and .values["verifier.total_states"] != null)] | length' "$tmp/v.json")" = 34
check "the figures repeat exactly within a kernel (time aside)" \
	test "$(jq '[.programs[].groups[] | select(.n != 2 or (.varies - ["verifier.time_us"] | length) > 0)] | length' "$tmp/v.json")" = 0
echo "programs whose verified insns differ between the kernels:" \
	"$(jq '[.programs[] | select(.diff["verifier.insns"].delta != 0)] | length' "$tmp/v.json")"
guests_finish
