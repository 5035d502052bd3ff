#!/bin/bash
# soak.sh - a fault soak on the lab in a box (issue 23, item 6): runs of
# tests/data/plans/faults.yaml on two hosts while the agents and bpflabd are SIGKILLed
# at random (seeded) moments and small tmpfs disks fill and empty under them: the
# coordinator's database directory and each host's spool. Then it lets
# the runs drain and checks, over the real database and the real namespaces:
#
#   - nothing left attached: after each agent kill in the victim's namespace, and at the
#     end in every namespace (bpftool net show, ip -d link);
#   - no job lost: every run ended, every job of it done or failed, with a reason when
#     failed; each run holds the jobs its submit reported (on the hosts connected then);
#   - no sample stored twice (SQL over samples), every done job has its samples;
#   - no daemon exited that was not killed, no spooled result left behind.
#
# It prints its figures (seed, kills, fills, jobs, attempts, recovery times, durations).
#
# Usage: tests/soak/soak.sh [--kills N] [--seconds T] [--seed S] [--drain T]
#   --kills N    stop after N kills (default 100)
#   --seconds T  or after T seconds of faults, whichever comes first (default 900)
#   --seed S     the schedule's seed (default: from the clock; printed either way)
#   --drain T    seconds the runs may take to end once the faults stop (default 240)
# `make soak` runs the long version (bench/README.md, "soak"); the short one is
# tests/integration/test_soak.sh. Needs root. LAB_NAME and LAB_SUBNET as in lib.sh.
LAB_NAME=${LAB_NAME:-sk$$}
. "$(dirname "$0")/../integration/lib.sh"

kills_max=100 seconds=900 seed=$(( $(date +%s) % 100000 )) drain=240
while [ $# -gt 0 ]; do
	case "$1" in
	--kills) kills_max=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--drain) drain=$2; shift 2 ;;
	*) echo "soak: unknown option '$1'" >&2; exit 2 ;;
	esac
done
echo "soak: seed $seed (repeat with --seed $seed), at most $kills_max kills in ${seconds} s, lab $LAB_NAME"

plan="$top/tests/data/plans/faults.yaml"
dir=$BPFLAB_LAB_DIR
work=$(mktemp -d /tmp/bpflab-soak.XXXXXX)
stopfile="$work/stop" events="$work/events" runs_file="$work/runs"
: > "$events"; : > "$runs_file"
filler= misexpanded=0

# three small tmpfs disks to fill: the database's (the lab's bpflab.db a symbolic link to
# a file there: SQLite follows it, so the WAL and its index sit beside the file) and each
# host's spool. Pid files and logs stay outside, so lab/lab's faults and the logs work
# while a disk is full. Unmounted after lab down (which removes what is in them).
dbdir="$work/db"
mounts=("$dbdir" "$dir/h1/spool" "$dir/h2/spool")
soak_exit() {
	local rc=$? m
	trap - EXIT
	trap '' INT TERM	# the cleanup is bounded (lab down waits 5 s a process at most)
	set +e			# every step of it runs, whatever failed before
	touch "$stopfile"
	[ -z "$filler" ] || { kill "$filler" 2>/dev/null; wait "$filler" 2>/dev/null; }
	if [ $rc -ne 0 ] && [ -d "$dir" ]; then
		echo "--- logs of lab $LAB_NAME (soak failed with $rc)"
		tail -n 20 "$dir"/bpflabd.log "$dir"/h*/agent.log 2>/dev/null || true
	fi
	lab_stop
	for m in "${mounts[@]}"; do
		! mountpoint -q "$m" || umount -l "$m"
	done
	rm -rf "$dir" "$work"
	exit $rc
}
trap soak_exit EXIT
trap 'echo "soak: terminated" >&2; exit 143' TERM
trap 'exit 130' INT

soak_t0=$SECONDS
lab_stop
for m in "${mounts[@]}"; do
	mkdir -p "$m" && mount -t tmpfs -o size=16m,mode=0755 soak "$m"
done
ln -s "$dbdir/bpflab.db" "$dir/bpflab.db"
"$top/lab/lab" up 2 --name "$LAB_NAME" --subnet "$LAB_SUBNET"
. "$dir/env"
export BPFLAB_COORDINATOR BPFLAB_KEY BPFLAB_SERVER_KEY

ns_of() { echo "bpflab-$LAB_NAME-$1"; }
attached() { # HOST: what is attached to its ports (XDP or tc), per bpftool and ip
	ip netns exec "$(ns_of "$1")" bpftool net show 2>/dev/null |
		grep -E "port-[abcd]|link-[np]" || true
	ip -n "$(ns_of "$1")" -d link show 2>/dev/null | grep -E "prog/xdp" || true
}
nothing_attached() { test -z "$(attached "$1")"; }
pidfile() { [ "$1" = bpflabd ] && echo "$dir/bpflabd.pid" || echo "$dir/$1/agent.pid"; }
alive() { local f; f=$(pidfile "$1"); [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; }
# tenths of a second in [MIN, MAX] (tenths), from the seeded $RANDOM
pause() { local t=$(($1 + RANDOM % ($2 - $1 + 1))); sleep "$((t / 10)).$((t % 10))"; }
ms() { date +%s%3N; }
logfile() { [ "$1" = bpflabd ] && echo "$dir/bpflabd.log" || echo "$dir/$1/agent.log"; }
# a daemon that exited without being killed is a finding: counted, its last log line
# shown, started again (from the command line saved when the lab came up). Except one:
# bpflabd refuses to start while it cannot write its database (store_recover, before it
# binds: docs/store.md, "Restart rules"), which a fill of the database's disk makes it do.
revive() {
	local p last
	for p in h1 h2 bpflabd; do
		alive "$p" && continue
		last=$(tail -n 1 "$(logfile "$p")" 2>/dev/null)
		if [ "$p" = bpflabd ] && [[ "$last" == *"cannot recover the queue: database or disk is full" ]]; then
			refused=$((refused + 1))
		else
			echo "soak: $p exited on its own: $last"
			unexpected=$((unexpected + 1))
		fi
		if [ "$p" = bpflabd ]; then
			"$top/lab/lab" start-coordinator --name "$LAB_NAME"
		else
			"$top/lab/lab" start-agent "$p" --name "$LAB_NAME"
		fi
	done
}
# lab/lab start-X runs the command line kill-X saved; saved here too, for a daemon that
# exits before it was ever killed
for f in "$(pidfile bpflabd)" "$(pidfile h1)" "$(pidfile h2)"; do
	tr '\0' '\n' < "/proc/$(cat "$f")/cmdline" > "${f%.pid}.cmdline"
done

# the runs: a run of 2 variants x REP repetitions x 2 hosts whenever fewer than 4 jobs
# wait, so that the agents are busy at every kill. A submit that gets no answer (no
# coordinator, a full disk) is tried again at the next fault. A run expands onto the
# hosts connected at its submit (docs/protocol.md, "submit"): one, when the other has
# not come back yet from its kill or bpflabd's, so the jobs a run must hold are the
# ones its submit reported (2 variants x REP on each host), checked against REP here.
feed() {
	local rep=$((3 + RANDOM % 4)) out run jobs hosts
	[ "$(sql "SELECT count(*) FROM jobs WHERE state = 'queued' OR state = 'running'" 2>/dev/null ||
		echo 99)" -lt 4 ] || return 0
	out=$("$bpflab" --timeout 3 run submit "$plan" -s repeat=$rep 2>&1) || return 0
	read -r run jobs hosts < <(printf '%s\n' "$out" |
		sed -n 's/^run \([0-9]*\) submitted: \([0-9]*\) jobs* on \([0-9]*\) host.*/\1 \2 \3/p')
	[ -n "$run" ] || return 0
	[ "$jobs" = $((rep * 2 * hosts)) ] || { misexpanded=$((misexpanded + 1))
		echo "soak: run $run submitted as $jobs jobs on $hosts hosts, not $((rep * 2)) a host"; }
	echo "$run $jobs" >> "$runs_file"
	[ "$hosts" = 2 ] || echo "soak: run $run submitted with $hosts host(s) connected"
}

# the disks: every 4-12 s one of the three tmpfs mounts is filled to the last byte for
# 2-6 s (a file written until ENOSPC), then emptied. Its own seed, so the schedule of
# fills does not depend on how many random numbers the kills drew.
fill_loop() {
	RANDOM=$((seed + 1))
	local d
	while [ ! -e "$stopfile" ]; do
		pause 40 120
		[ -e "$stopfile" ] && break
		d=${mounts[RANDOM % 3]}
		dd if=/dev/zero of="$d/.soak-fill" bs=64k 2>/dev/null || true
		echo "fill $d $(df --output=avail -B1 "$d" | tail -n 1)" >> "$events"
		pause 20 60
		rm -f "$d/.soak-fill"
	done
}
fill_loop &
filler=$!

RANDOM=$seed
kills=0 agent_kills=0 coord_kills=0 unexpected=0 refused=0 attach_fail=0 unseen=0
agent_rec=() coord_rec=()
start=$SECONDS t0=$(ms)
feed
while [ "$kills" -lt "$kills_max" ] && [ $((SECONDS - start)) -lt "$seconds" ]; do
	pause 2 20
	feed
	r=$((RANDOM % 5))
	victim=$([ $r -lt 2 ] && echo h1 || { [ $r -lt 4 ] && echo h2 || echo bpflabd; })
	revive
	if [ "$victim" = bpflabd ]; then
		"$top/lab/lab" kill-coordinator --name "$LAB_NAME"
		coord_kills=$((coord_kills + 1))
		pause 0 20
		t=$(ms)
		"$top/lab/lab" start-coordinator --name "$LAB_NAME"
		# recovered: the client socket answers and both hosts are back (idle or busy)
		up2() { [ "$("$bpflab" --timeout 1 -j host list 2>/dev/null |
			grep -o '"state": *"\(idle\|busy\)"' | wc -l)" -ge 2 ]; }
		if wait_for 30 up2; then coord_rec+=($(($(ms) - t))); else unseen=$((unseen + 1)); fi
	else
		"$top/lab/lab" kill-agent "$victim" --name "$LAB_NAME"
		agent_kills=$((agent_kills + 1))
		# the links go with the process's files, released a moment after it exits
		if ! wait_for 5 nothing_attached "$victim"; then
			attach_fail=$((attach_fail + 1))
			echo "soak: left attached on $victim after kill $kills: $(attached "$victim")"
		fi
		pause 0 20
		log="$dir/$victim/agent.log"
		mark=$(grep -c "welcomed by" "$log" 2>/dev/null || true)
		t=$(ms)
		"$top/lab/lab" start-agent "$victim" --name "$LAB_NAME"
		welcomed() { [ "$(grep -c "welcomed by" "$log" 2>/dev/null || true)" -gt "${mark:-0}" ]; }
		if wait_for 30 welcomed; then agent_rec+=($(($(ms) - t))); else unseen=$((unseen + 1)); fi
	fi
	kills=$((kills + 1))
done
fault_s=$(( ($(ms) - t0) / 1000 ))
touch "$stopfile"
wait "$filler" 2>/dev/null || true
filler=
for m in "${mounts[@]}"; do rm -f "$m/.soak-fill"; done
revive

# drain: every run ends, the last acks empty the spools
t=$(ms)
runs_open() { [ "$(sql "SELECT count(*) FROM runs WHERE state <> 'done' AND state <> 'failed'
	AND state <> 'cancelled'" 2>/dev/null || echo 1)" = 0 ]; }
wait_for "$drain" runs_open || true
drain_s=$(( ($(ms) - t) / 1000 ))
spool_empty() { test -z "$(ls "$dir"/h*/spool/ 2>/dev/null | grep json || true)"; }
wait_for 15 spool_empty || true

# checks
check "no program left attached after any of $agent_kills agent kills" test "$attach_fail" = 0
for h in h1 h2; do
	check "nothing attached in $h's namespace at the end" nothing_attached "$h"
done
check "no daemon exited without being killed ($unexpected)" test "$unexpected" = 0
check "every run ended within ${drain} s of the last fault" runs_open
open=$(sql "SELECT count(*) FROM jobs WHERE state <> 'done' AND state <> 'failed'")
check "0 jobs lost: none left queued or running ($open)" test "$open" = 0
short=0
while read -r run want; do
	have=$(sql "SELECT count(*) FROM jobs WHERE run_id = $run AND $planned")
	[ "$have" = "$want" ] || { short=$((short + 1)); echo "soak: run $run holds $have planned jobs of $want"; }
done < "$runs_file"
check "every submit expanded 2 variants x repeat on each host ($misexpanded not)" \
	test "$misexpanded" = 0
check "every run holds the jobs its submit reported ($short not)" test "$short" = 0
noreason=$(sql "SELECT count(*) FROM jobs WHERE state = 'failed' AND ifnull(error, '') = ''")
check "every failed job says why ($noreason without a reason)" test "$noreason" = 0
empty=$(sql "SELECT count(*) FROM jobs j WHERE state = 'done' AND (result_ms IS NULL OR
	NOT EXISTS (SELECT 1 FROM samples s WHERE s.job_id = j.id))")
check "every done job has its result and samples ($empty without)" test "$empty" = 0
# each done job's samples are those of one result an agent sent for it (each agent logs
# "result job N: K samples" before it spools and sends; a job that ran twice has two)
sent_counts() {
	cat "$dir"/h*/agent.log | sed -n 's/.* result job \([0-9]*\): \([0-9]*\) samples$/\1 \2/p'
}
mixed=$( { sent_counts | sed 's/^/sent /'
	sql "SELECT 'stored', j.id, count(s.job_id) FROM jobs j LEFT JOIN samples s
		ON s.job_id = j.id WHERE j.state = 'done' GROUP BY j.id" | tr '|' ' '
	} | awk '$1 == "sent" { ok[$2 " " $3] = 1; next }
		!(($2 " " $3) in ok) { n++; if (n <= 5) printf "job %s: %s stored, sent: none of that count\n", $2, $3 > "/dev/stderr" }
		END { print n + 0 }')
check "every done job's samples are one sent result's ($mixed not)" test "$mixed" = 0
stored=$(sql "SELECT count(*) FROM samples")
distinct=$(sql "SELECT count(*) FROM (SELECT DISTINCT job_id, metric, subject, window,
	ifnull(seq, -1) FROM samples)")
check "0 samples stored twice ($distinct distinct of $stored)" test "$distinct" = "$stored"
openatt=$(sql "SELECT count(*) FROM job_attempts WHERE outcome = 'running'")
check "no attempt left running ($openatt)" test "$openatt" = 0
check "agent spools are empty" spool_empty

# figures
median_max() { # values...: "median M ms, max X ms (N)"
	[ $# -gt 0 ] || { echo "none"; return; }
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
		printf "median %d ms, max %d ms (%d)", v[int((NR + 1) / 2)], v[NR], NR }'
}
fills=$(grep -c '^fill' "$events" || true)
echo "--- soak figures (seed $seed)"
echo "faults:     ${fault_s} s, $kills SIGKILLs ($agent_kills agents, $coord_kills bpflabd), $fills disk fills" \
	"($(grep -c "^fill $dbdir " "$events" || true) database, $(grep -c "^fill $dir/h" "$events" || true) spools)"
echo "runs:       $(sql "SELECT count(*) FROM runs"), $(sql "SELECT group_concat(state || ' ' || n, ', ') FROM
	(SELECT state, count(*) n FROM runs GROUP BY state)")"
echo "jobs:       $(sql "SELECT count(*) FROM jobs"), $(sql "SELECT group_concat(state || ' ' || n, ', ') FROM
	(SELECT state, count(*) n FROM jobs GROUP BY state)"); added repetitions $(sql "SELECT count(*) FROM jobs WHERE NOT $planned")"
echo "attempts:   $(sql "SELECT group_concat(outcome || ' ' || n, ', ') FROM
	(SELECT outcome, count(*) n FROM job_attempts GROUP BY outcome)")"
echo "failures:   $(sql "SELECT group_concat(n || ' x ' || error, '; ') FROM
	(SELECT error, count(*) n FROM jobs WHERE state = 'failed' GROUP BY error)")"
echo "samples:    $stored stored, $distinct distinct"
echo "recovery:   agent restart to welcome $(median_max "${agent_rec[@]}");" \
	"bpflabd restart to both hosts back $(median_max "${coord_rec[@]}"); $unseen not seen within 30 s;" \
	"bpflabd refused to start on a full database disk $refused times"
jobms=$(sql "SELECT finished_ms - started_ms FROM jobs WHERE state = 'done' AND finished_ms IS NOT NULL
	ORDER BY 1 LIMIT 1 OFFSET (SELECT count(*) / 2 FROM jobs WHERE state = 'done' AND finished_ms IS NOT NULL)")
echo "durations:  faults ${fault_s} s, drain ${drain_s} s (last fault to every run ended)," \
	"a done job ${jobms:-?} ms (median, started to finished), the whole soak $((SECONDS - soak_t0)) s"
finish
