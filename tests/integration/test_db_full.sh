#!/bin/bash
# test_db_full.sh - the database's disk fills while a job runs, then empties: the result
# bpflabd could not store (`cannot store result of job N: database or disk is full`, not
# acknowledged, still in the agent's spool) is stored once the disk has room again, with
# no restart of anything (the agent sends it again after a doubling wait: docs/agent.md,
# "Spool"), and the run completes; no sample stored twice. Found by the fault soak
# (tests/soak/soak.sh), whose kills had hidden it: the agent resent its spool only after
# a welcome, and the coordinator kept the host busy with the job meanwhile.
. "$(dirname "$0")/lib.sh"

plan="$top/tests/data/plans/faults.yaml"
# the database on a small tmpfs of its own (bpflab.db a symbolic link to it: SQLite
# follows it, the WAL sits beside the file); the logs and pid files stay outside
dbdir=$(mktemp -d /tmp/bpflab-dbfull.XXXXXX)
db_full_exit() {
	local rc=$?
	set +e
	[ $rc -eq 0 ] || tail -n 20 "$BPFLAB_LAB_DIR"/bpflabd.log "$BPFLAB_LAB_DIR"/h1/agent.log
	lab_stop
	umount -l "$dbdir"
	rm -rf "$dbdir"
	(exit $rc)
	on_exit
}
trap db_full_exit EXIT
lab_stop
mount -t tmpfs -o size=8m,mode=0755 dbfull "$dbdir"
mkdir -p "$BPFLAB_LAB_DIR"
ln -s "$dbdir/bpflab.db" "$LAB_DB"
"$top/lab/lab" up 1 --name "$LAB_NAME" --subnet "$LAB_SUBNET"
. "$BPFLAB_LAB_DIR/env"
export BPFLAB_COORDINATOR BPFLAB_KEY BPFLAB_SERVER_KEY
log="$BPFLAB_LAB_DIR/bpflabd.log"

out=$("$bpflab" run submit "$plan" -s repeat=2)
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p')
check "run of 4 jobs on 1 host ($out)" grep -q "4 jobs on 1 host" <<<"$out"
running() { [ "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='running'")" = 1 ]; }
check "a job runs" wait_for 20 running
job=$(sql "SELECT id FROM jobs WHERE run_id=$run AND state='running'")

# the disk full until bpflabd has failed to store that job's result
dd if=/dev/zero of="$dbdir/fill" bs=64k 2>/dev/null || true
refused() { grep -q "cannot store result of job $job: database or disk is full" "$log"; }
check "bpflabd could not store job $job's result on the full disk" wait_for 20 refused
check "and did not acknowledge it: it is in h1's spool" \
	test -f "$BPFLAB_LAB_DIR/h1/spool/job-$job.json"
rm -f "$dbdir/fill"

# room again: the result comes again and is stored, the run goes on, nothing restarted
stored() { [ "$(sql "SELECT state FROM jobs WHERE id=$job")" = done ]; }
check "job $job's result stored once the disk has room (no restart)" wait_for 20 stored
ended() { [ "$(sql "SELECT state FROM runs WHERE id=$run")" = done ]; }
check "the run completes" wait_for 30 ended
check "no sample stored twice" test "$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run")" = \
	"$(sql "SELECT count(*) FROM (SELECT DISTINCT s.job_id, s.metric, s.subject, s.window, ifnull(s.seq, -1) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run)")"
spool_empty() { test -z "$(ls "$BPFLAB_LAB_DIR/h1/spool/")"; }
check "h1's spool is empty" wait_for 10 spool_empty
check "bpflabd and the agent still run (pids unchanged)" \
	bash -c "kill -0 $(cat "$BPFLAB_LAB_DIR/bpflabd.pid") && kill -0 $(cat "$BPFLAB_LAB_DIR/h1/agent.pid")"
finish
