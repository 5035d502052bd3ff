#!/bin/bash
# test_guests_tc.sh - tc plans on a kernel without tcx: one QEMU guest booting Debian's
# 6.1.0-47 cloud kernel (docs/kernels.md) runs plans/bpf-stats-variants.yaml (tc ingress
# and egress programs on port b), shortened, through coordinator and agent. The agent's
# tcx links fail there (EINVAL) and it falls back to a clsact qdisc with cls_bpf filters
# (agent/attach.h); the test checks that every job is done, that its samples are stored
# with kernel.release 6.1.0-47, that frames went through both programs (counters,
# prog.ns_per_run), and that each job's env says "tc_attach": clsact for both hooks of
# port b. Prints the boot time, the run time and the whole time (target: under 90 s).
#
# Skips (exit 0, "skipped: ...") when BPFLAB_SKIP_GUESTS=1, when the guest packages cannot
# be installed, or when the kernel package cannot be fetched. The kernel is cached in
# $BPFLAB_KERNEL_CACHE (default /var/cache/bpflab/kernels) between runs;
# BPFLAB_TEST_KERNEL overrides it (a kernel without tcx, before 6.6).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guests.sh"
kernel=${BPFLAB_TEST_KERNEL:-6.1.0-47-cloud-amd64}

guests_require
guests_fetch_kernels -q "kernel '$kernel'" "$kernel"

guests_make_tmp
guests_lab_up "$kernel" BPFLAB_GUEST_TIMEOUT="${BPFLAB_GUEST_TIMEOUT:-60}"
echo "guest g1 ($kernel) registered $guests_boot_s s after 'lab up'"

# --- the tc plan, shortened: 5 variants x 1 repetition, each an ingress/egress pair on b
t_run=$(date +%s.%N)
out=$(timeout 120 "$bpflab" $([ -n "${BPFLAB_KEY:-}" ] || echo --plaintext) run submit \
	"$top/plans/bpf-stats-variants.yaml" -s traffic.duration=300ms -s traffic.warmup=100ms \
	-s repeat=1 --wait) || true
echo "$out"
echo "run took $(echo "$(date +%s.%N) - $t_run" | bc) s"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "run submitted and waited for (run '$run')" test -n "$run"
run=${run:-0}
sql "SELECT id, variant, state, ifnull(error, '') FROM jobs WHERE run_id=$run ORDER BY seq" |
	column -t -s '|'
check "5 jobs (5 variants on g1), all done" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done' AND $planned")" = 5

in_run="FROM samples s JOIN jobs j ON j.id = s.job_id JOIN host_envs e ON e.id = j.env_id
	WHERE j.run_id=$run AND e.kernel_release='$kernel' AND s.seq IS NULL"
n=$(sql "SELECT count(*) $in_run AND s.metric='prog.ns_per_run' AND s.window='cost' AND s.value > 0")
check "kernel $kernel: both programs of every job measured prog.ns_per_run ($n of 10)" test "$n" = 10
n=$(sql "SELECT count(*) $in_run AND s.metric='counter.pps' AND s.subject IN ('ingress', 'egress')
	AND s.value > 0")
check "kernel $kernel: frames went through the ingress and egress filters of every job ($n of 10)" \
	test "$n" = 10

# --- each job's env: port b's tc hooks were attached through clsact, nothing else was
tc_of() { # ROLE HOOK: the distinct tc_attach values of the run's jobs
	sql "SELECT group_concat(DISTINCT json_extract(p.value, '$.tc_attach.$2')) FROM jobs j
		JOIN host_envs e ON e.id = j.env_id, json_each(e.inventory, '$.ports') p
		WHERE j.run_id=$run AND json_extract(p.value, '$.role') = '$1'"
}
check "every job: port b tc_attach ingress clsact ($(tc_of b ingress))" test "$(tc_of b ingress)" = clsact
check "every job: port b tc_attach egress clsact ($(tc_of b egress))" test "$(tc_of b egress)" = clsact
check "every job: port a tc_attach none ($(tc_of a ingress)/$(tc_of a egress))" \
	test "$(tc_of a ingress)/$(tc_of a egress)" = none/none
n=$(sql "SELECT count(*) FROM jobs j JOIN host_envs e ON e.id = j.env_id
	WHERE j.run_id=$run AND j.$planned AND e.kernel_release='$kernel'")
check "all 5 jobs ran on $kernel ($n)" test "$n" = 5

# --- and the compare tables say so (lib/report/report_compare.c: tc attach per side)
"$bpflab" $([ -n "${BPFLAB_KEY:-}" ] || echo --plaintext) result compare \
	--plan bpf-stats-variants --by variant --metric prog.ns_per_run > "$tmp/compare.txt" 2>&1
cat "$tmp/compare.txt"
check "result compare names the attach method of each side (clsact)" \
	grep -q "^  tc programs attached through clsact$" "$tmp/compare.txt"

echo "prog.ns_per_run under icount (guest instructions per run) on $kernel, clsact:"
sql "SELECT j.variant, s.subject, printf('%.1f', s.value) $in_run AND s.metric='prog.ns_per_run'
	AND s.window='cost' ORDER BY j.seq, s.subject" | column -t -s '|'

guests_finish
