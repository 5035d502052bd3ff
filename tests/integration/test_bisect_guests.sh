#!/bin/bash
# test_bisect_guests.sh - a bisection over real kernels, end to end (docs/bisect.md):
# six Debian cloud kernels, oldest first, where the XDP program's cost changes at a known
# point: 58 guest instructions per run on every 6.1 kernel, 62 on 6.12 (docs/kernels.md),
# so the first bad kernel is 6.12.117 and its good neighbour 6.1.0-53. The lab starts
# with no host at all; `bisect step` finds no stored results, asks the lab's kernel
# provider (`lab/lab guest-up --max 3`) for a guest with the kernel it needs, submits the
# quickstart plan (drop only, short traffic, 5 repetitions) to it through the coordinator,
# waits, and records the step. The session goes through the coordinator (no --db: the
# bisect_* requests), and between steps 3 and 4 bpflabd is killed and started again:
# while it is down `bisect status` has no answer, after it the session is where it was
# and the steps go on. Each step tells the provider which kernels the session still
# needs (BPFLAB_KEEP_KERNELS: the current good and bad ends), so `--max 3` stops other
# guests and the confirmation finds both of its kernels running. Checks: the result
# names the first bad kernel and its good neighbour, the confirmation agrees, every step
# is stored (`bisect log`), at most 3 guests ran at once, at most log2(6)+2 kernels were
# measured plus the confirmation, and the bad end's kernel was booted once (the
# confirmation did not boot it again). Prints the time of every step, the boots and the
# whole test.
#
# Skips (exit 0, "skipped: ...") when BPFLAB_SKIP_GUESTS=1, when the guest packages
# cannot be installed, or when the kernel packages cannot be fetched. Kernels are cached
# in $BPFLAB_KERNEL_CACHE (default /var/cache/bpflab/kernels) between runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guests.sh"
kernels=(6.1.0-47-cloud-amd64 6.1.0-48-cloud-amd64 6.1.0-49-cloud-amd64 6.1.0-50-cloud-amd64
	6.1.0-53-cloud-amd64 6.12.117+deb12-cloud-amd64)
good=${kernels[0]}
bad=${kernels[5]}
want_bad=6.12.117+deb12-cloud-amd64
want_good=6.1.0-53-cloud-amd64

guests_require
guests_fetch_kernels -q -t 300 "kernels '${kernels[*]}'" "${kernels[@]}"

guests_make_tmp
printf '%s\n' "# oldest first" "${kernels[@]}" > "$tmp/kernels"
# a lab with a coordinator and no namespace host: every host is a guest the provider
# boots; g1 (the good end) comes up with the lab, the provider boots the rest on demand
guests_lab_up "$good" >/dev/null
export BPFLAB_KERNEL_PROVIDER="$top/lab/lab guest-up --name $LAB_NAME --subnet $LAB_SUBNET --max 3"
export BPFLAB_GUEST_TIMEOUT=${BPFLAB_GUEST_TIMEOUT:-150}
# through the coordinator: BPFLAB_COORDINATOR and the keys come from the lab's env
b() { "$bpflab" --bpf-dir "$top/build/bpf" bisect "$@"; }

# the quickstart plan, drop only, short: 5 x 1 jobs per kernel
b start --plan "$top/plans/quickstart.yaml" \
	--metric prog.ns_per_run --variant drop --kernels "$tmp/kernels" --good "$good" --bad "$bad" \
	--timing icount -s traffic.duration=300ms -s traffic.warmup=100ms \
	-s 'variants={drop: [{port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o, program: xdp_drop}]}' ||
	{ fail "bisect start over ${#kernels[@]} kernels"; finish; }
ok "bisect start over ${#kernels[@]} kernels"

session_state() { b status -j | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])'; }
n_steps() { b log -j | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'; }

# kill bpflabd and start it again on the same database: the session must be where it was
restart_coordinator() {
	local before after
	b status > "$tmp/before.txt"
	before=$(n_steps)
	"$top/lab/lab" kill-coordinator --name "$LAB_NAME"
	check "with bpflabd down, 'bisect status' has no answer (no --db: it asks bpflabd)" \
		not "$bpflab" --timeout 2 bisect status
	"$top/lab/lab" start-coordinator --name "$LAB_NAME"
	for ((w = 0; w < 50; w++)); do b status > "$tmp/after.txt" 2>/dev/null && break; sleep 0.2; done
	after=$(n_steps)
	echo "bpflabd killed and started again before step $i ($before steps stored):"
	sed 's/^/    /' "$tmp/after.txt"
	check "after the restart the session has its $before steps ($after)" test "$after" = "$before"
	check "after the restart 'bisect status' says what it said before" cmp -s "$tmp/before.txt" "$tmp/after.txt"
}
not() { ! "$@" >/dev/null 2>&1; }

max_guests=0
restarted=0
guests_running() { pgrep -f "[q]emu-system.*bpflab-lab-$LAB_NAME/" | wc -l; }
for ((i = 1; i <= 12; i++)); do
	[ "$(session_state)" = active ] || break
	if [ "$i" = 4 ]; then restart_coordinator; restarted=1; fi
	t0=$(date +%s)
	if ! timeout 600 "$bpflab" --bpf-dir "$top/build/bpf" bisect step > "$tmp/step.out" 2> "$tmp/step.err"; then
		cat "$tmp/step.out" "$tmp/step.err"
		fail "bisect step $i"
		break
	fi
	n=$(guests_running)
	[ "$n" -gt "$max_guests" ] && max_guests=$n
	echo "step $i ($(($(date +%s) - t0)) s, $n guests running):"
	sed 's/^/    /' "$tmp/step.out"
	grep -E "submitted|stopped guest|up in|more than --max|still needs" "$tmp/step.err" | sed 's/^/    /' || true
done
check "bpflabd was restarted in the middle of the session" test "$restarted" = 1

b log | tee "$tmp/log.txt"
b status | tee "$tmp/status.txt"
# the same session read from the database file (--db) prints the same, text and JSON
"$bpflab" --db "$LAB_DB" bisect log > "$tmp/log-db.txt"
"$bpflab" --db "$LAB_DB" bisect status > "$tmp/status-db.txt"
b status -j > "$tmp/status.json"
"$bpflab" --db "$LAB_DB" -j bisect status > "$tmp/status-db.json"
same_outputs() {
	cmp "$tmp/log.txt" "$tmp/log-db.txt" && cmp "$tmp/status.txt" "$tmp/status-db.txt" &&
		cmp "$tmp/status.json" "$tmp/status-db.json"
}
check "status and log through the coordinator and with --db are the same (text and -j)" same_outputs
check "session is done" test "$(session_state)" = done
check "the coordinator's database says so too" test "$(sqlite3 "$LAB_DB" "SELECT state FROM bisect_sessions ORDER BY id DESC LIMIT 1")" = done
check "first bad kernel is '$want_bad'" grep -q "first bad kernel: '$want_bad' (good neighbour '$want_good')" "$tmp/status.txt"
check "the confirmation agrees" grep -q "confirmation agrees" "$tmp/status.txt"
res=$(sqlite3 "$LAB_DB" "SELECT json_extract(result, '$.first_bad') || ' ' || json_extract(result, '$.good') FROM bisect_sessions ORDER BY id DESC LIMIT 1")
check "stored result names '$want_bad' and '$want_good' ($res)" test "$res" = "$want_bad $want_good"
steps=$(sqlite3 "$LAB_DB" "SELECT count(*) FROM bisect_steps")
kmeasured=$(sqlite3 "$LAB_DB" "SELECT count(DISTINCT kernel) FROM bisect_steps WHERE verdict != 'confirm'")
check "steps stored ($steps), $kmeasured kernels measured (at most log2(6)+2 = 5)" test "$kmeasured" -le 5 -a "$steps" -ge 4
nruns=$(sqlite3 "$LAB_DB" "SELECT count(*) FROM runs")
check "every step's run went through the coordinator ($nruns runs, every step has one)" \
	test "$(sqlite3 "$LAB_DB" "SELECT count(*) FROM bisect_steps WHERE runs = '[]'")" = 0
echo "prog.ns_per_run under icount per kernel (guest instructions per run):"
sqlite3 "$LAB_DB" "SELECT e.kernel_release, count(*), printf('%.3f', min(s.value)), printf('%.3f', max(s.value))
	FROM samples s JOIN jobs j ON j.id = s.job_id JOIN host_envs e ON e.id = j.env_id
	WHERE s.metric = 'prog.ns_per_run' AND s.seq IS NULL GROUP BY 1 ORDER BY 1" | column -t -s '|'
check "at most 3 guests ran at once (seen $max_guests)" test "$max_guests" -le 3
boots=$(ls -d "$BPFLAB_LAB_DIR"/g*/ | wc -l)
bad_boots=$(grep -lx "$bad" "$BPFLAB_LAB_DIR"/g*/kernel | wc -l)
echo "guest boots: $boots ($(for g in "$BPFLAB_LAB_DIR"/g*/; do printf '%s=%s ' "$(basename "$g")" "$(cat "$g/kernel")"; done))"
check "the bad end '$bad' was booted once: the confirmation found it running ($bad_boots boots)" test "$bad_boots" = 1

guests_finish
