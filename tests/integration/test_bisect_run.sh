#!/bin/bash
# test_bisect_run.sh - `bpflab bisect run` under a real `git bisect run`, and a whole
# bisect session (start, step, status, log) over the same stored results, with --db
# (the session in the database file, no coordinator).
#
# The measurements are a PREPARED FIXTURE, not a lab run: the lab in a box runs one
# kernel (the host's), so per-kernel results are written into a bpflab database with
# SQL (hosts, host_envs with kernel_release, plan, runs, done jobs, whole-window
# samples), exactly the rows the store keeps after real runs. Eight "kernels"
# 6.1.0-10 .. 6.1.0-17 with prog.ns_per_run 35.6 ns +-0.5 %; from 6.1.0-15 on it is
# 15 % slower; 6.1.0-12 has no results (it cannot run: exit 125, git skips it).
# A temporary git repository has one commit per kernel (file KERNEL names it); git
# bisect must name the 6.1.0-15 commit as the first bad one.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bpflab="${BPFLAB_BIN:-$top/build/bin}/bpflab"
tmp=$(mktemp -d /tmp/bpflab-bisect-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
db="$tmp/lab.db"
fail() { echo "FAIL: $*" >&2; exit 1; }

# the schema, through bpflab itself (reset fails: no session yet, which is the point)
"$bpflab" --db "$db" bisect reset >/dev/null 2>&1 && fail "reset without a session"
kernels="6.1.0-10 6.1.0-11 6.1.0-12 6.1.0-13 6.1.0-14 6.1.0-15 6.1.0-16 6.1.0-17"
{
	echo "BEGIN;"
	echo "INSERT OR IGNORE INTO job_specs (id, text) VALUES (1, '{}');"
	echo "INSERT INTO plans (id, name, sha256, text, created_ms) VALUES (1, 'xdp-cost', 'f00', 'name: xdp-cost', 1);"
	run=0; job=0; i=0
	for k in $kernels; do
		i=$((i + 1))
		echo "INSERT INTO hosts (id, name, state, kernel_release, inventory, first_seen_ms, last_seen_ms) VALUES ($i, 'guest-$k', 'gone', '$k', '{}', 1, 1);"
		echo "INSERT INTO host_envs (id, host_id, sha256, kernel_release, inventory, first_seen_ms) VALUES ($i, $i, 'env$i', '$k', '{\"kernel\":{\"release\":\"$k\"}}', 1);"
		[ "$k" = 6.1.0-12 ] && continue
		# two runs per kernel: a session's confirmation round takes the second
		for r in 1 2; do
			run=$((run + 1))
			echo "INSERT INTO runs (id, plan_id, plan_file, state, submitted_ms, finished_ms) VALUES ($run, 1, 'xdp-cost.yaml', 'done', $((run * 1000)), $((run * 1000 + 500)));"
			for rep in 1 2 3 4 5; do
				job=$((job + 1))
				# 35.6 ns, +-0.5 % by repetition; 15 % slower from 6.1.0-15 on
				v=$(awk -v k="$k" -v rep=$rep -v r=$r 'BEGIN {
					split(k, p, "-"); slow = (p[2] + 0 >= 15) ? 1.15 : 1;
					printf "%.4f", 35.6 * slow * (1 + 0.005 * sin(rep * 2.1 + r))}')
				echo "INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, spec_id, state, env_id, finished_ms) VALUES ($job, $run, $rep, $i, 'drop', 0, $rep, 1, 'done', $i, $((run * 1000 + rep)));"
				echo "INSERT INTO samples (job_id, metric, subject, value, unit, window) VALUES ($job, 'prog.ns_per_run', 'xdp_drop', $v, 'ns', 'cost');"
			done
		done
	done
	echo "COMMIT;"
} > "$tmp/fixture.sql"
sqlite3 "$db" < "$tmp/fixture.sql"

# --- exit codes one by one
judge() { "$bpflab" --db "$db" bisect run --plan xdp-cost --metric prog.ns_per_run \
	--threshold 5% --baseline 1 --kernel "$1" >/dev/null 2>&1; }
rc=0; judge 6.1.0-13 || rc=$?; [ $rc -eq 0 ] || fail "6.1.0-13 should be good (0), got $rc"
rc=0; judge 6.1.0-16 || rc=$?; [ $rc -eq 1 ] || fail "6.1.0-16 should be bad (1), got $rc"
rc=0; judge 6.1.0-12 || rc=$?; [ $rc -eq 125 ] || fail "6.1.0-12 has no results (125), got $rc"
rc=0; "$bpflab" --db "$db" bisect run --plan xdp-cost --metric prog.ns_per_run \
	--threshold 20% --baseline 1 --kernel 6.1.0-16 >/dev/null 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "a 15 % change under a 20 % threshold is good, got $rc"
echo "ok: bisect run exit codes 0 / 1 / 125"

# --- a real git bisect run over commits that name kernels
repo="$tmp/repo"
git init -q "$repo"
cd "$repo"
git config user.email t@example.invalid
git config user.name bisect-test
for k in $kernels; do
	echo "$k" > KERNEL
	git add KERNEL
	git commit -q -m "kernel $k"
done
first=$(git rev-list --max-parents=0 HEAD)
git bisect start HEAD "$first" >/dev/null
cat > "$tmp/judge.sh" <<EOS
#!/bin/sh
exec "$bpflab" --db "$db" bisect run --plan xdp-cost --metric prog.ns_per_run \
	--threshold 5% --baseline 1 --kernel "\$(cat KERNEL)"
EOS
chmod +x "$tmp/judge.sh"
git bisect run "$tmp/judge.sh" > "$tmp/bisect.out" 2>&1 || true
culprit=$(sed -n "s/^\([0-9a-f]\{40\}\) is the first bad commit.*/\1/p" "$tmp/bisect.out")
[ -n "$culprit" ] || { cat "$tmp/bisect.out"; fail "git bisect found no first bad commit"; }
msg=$(git log -1 --format=%s "$culprit")
git bisect reset >/dev/null 2>&1 || true
cd "$top"
[ "$msg" = "kernel 6.1.0-15" ] || { cat "$tmp/bisect.out"; fail "first bad is '$msg'"; }
echo "ok: git bisect run names '$msg' as the first bad commit"

# --- a session over the same results: start, step until done, status, log
printf '%s\n' $kernels > "$tmp/kernels.txt"
"$bpflab" --db "$db" bisect start --plan xdp-cost --metric prog.ns_per_run \
	--good 6.1.0-10 --bad 6.1.0-17 --kernels "$tmp/kernels.txt" --threshold 5%
"$bpflab" --db "$db" bisect start --plan xdp-cost --metric prog.ns_per_run \
	--good 6.1.0-10 --bad 6.1.0-17 --kernels "$tmp/kernels.txt" >/dev/null 2>&1 &&
	fail "a second active session was allowed"
for i in $(seq 1 12); do
	"$bpflab" --db "$db" bisect status | grep -q '^engine: done' && break
	# -j: the text goes to stderr, stdout is the session with every step stored so far
	"$bpflab" --db "$db" -j bisect step --skip > "$tmp/step.json" ||
		fail "bisect step $i failed"
	n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["steps"]))' \
		"$tmp/step.json") || fail "bisect step -j printed no session JSON"
	[ "$n" = "$(sqlite3 "$db" "SELECT count(*) FROM bisect_steps")" ] ||
		fail "bisect step -j shows $n steps, the database has others"
done
"$bpflab" --db "$db" bisect status | tee "$tmp/status.out"
grep -q "first bad kernel: '6.1.0-15' (good neighbour '6.1.0-14')" "$tmp/status.out" ||
	fail "the session did not find 6.1.0-15"
grep -q "confirmation agrees" "$tmp/status.out" || fail "the confirmation did not agree"
"$bpflab" --db "$db" bisect log
steps=$(sqlite3 "$db" "SELECT count(*) FROM bisect_steps")
state=$(sqlite3 "$db" "SELECT state FROM bisect_sessions")
[ "$state" = done ] || fail "session state '$state'"
[ "$steps" -ge 5 ] || fail "only $steps steps stored"
echo "ok: session found 6.1.0-15 in $steps stored steps"

# --- a session left active after its last step (a client that stopped before it ended
# the session): the next step ends it, with the result of the replayed steps
sqlite3 "$db" "UPDATE bisect_sessions SET state = 'active', result = NULL"
"$bpflab" --db "$db" bisect step | tee "$tmp/repair.out"
grep -q "^bisect session 1 done" "$tmp/repair.out" || fail "the step did not end the session"
res=$(sqlite3 "$db" "SELECT state, json_extract(result, '$.first_bad') FROM bisect_sessions")
[ "$res" = "done|6.1.0-15" ] || fail "session after the repair: '$res'"
[ "$(sqlite3 "$db" "SELECT count(*) FROM bisect_steps")" = "$steps" ] || fail "the repair added a step"
"$bpflab" --db "$db" bisect step >/dev/null 2>&1 && fail "a step of a done session was allowed"
echo "ok: a session left active after its last step is ended by the next step"

# --- what stops git bisect run (128 the tool failed, 129 bad usage) instead of a skip
judge_rc() { rc=0; "$bpflab" "$@" >"$tmp/judge.out" 2>&1 || rc=$?; echo $rc; }
rc=$(judge_rc --db "$tmp/no/such.db" bisect run --plan xdp-cost --metric prog.ns_per_run \
	--threshold 5% --baseline 1 --kernel 6.1.0-13)
[ "$rc" = 128 ] || fail "an unreadable database exits 128, got $rc"
rc=$(judge_rc --db "$db" bisect run --plan xdp-cost --metric prog.ns_per_run \
	--threshold 5% --baseline 999 --kernel 6.1.0-13)
[ "$rc" = 128 ] || fail "a baseline run without values exits 128, got $rc"
rc=$(judge_rc --db "$db" bisect run --plan xdp-cost --metric prog.ns_per_run --baseline 1)
[ "$rc" = 129 ] || fail "no --threshold exits 129, got $rc"
# a run of two variants: never pooled into one sample
{
	echo "BEGIN;"
	echo "INSERT OR IGNORE INTO job_specs (id, text) VALUES (1, '{}');"
	echo "INSERT INTO runs (id, plan_id, plan_file, state, submitted_ms, finished_ms) VALUES (100, 1, 'xdp-cost.yaml', 'done', 900000, 900500);"
	for rep in 1 2 3 4 5; do
		for v in drop pass; do
			job=$((job + 1))
			echo "INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, spec_id, state, env_id, finished_ms) VALUES ($job, 100, $job, 7, '$v', 0, $rep, 1, 'done', 7, $((900000 + job)));"
			echo "INSERT INTO samples (job_id, metric, subject, value, unit, window) VALUES ($job, 'prog.ns_per_run', 'xdp_$v', $((40 + rep)), 'ns', 'cost');"
		done
	done
	echo "COMMIT;"
} | sqlite3 "$db"
rc=$(judge_rc --db "$db" bisect run --plan xdp-cost --metric prog.ns_per_run \
	--threshold 5% --baseline 100 --kernel 6.1.0-13)
[ "$rc" = 129 ] || fail "a baseline of two variants exits 129, got $rc"
grep -qx "bpflab: metric 'prog.ns_per_run' of run 100: values of 2 variants ('drop', 'pass'): choose one with --variant" "$tmp/judge.out" ||
	{ cat "$tmp/judge.out"; fail "the refusal does not list the variants"; }
rc=$(judge_rc --db "$db" bisect run --plan xdp-cost --metric prog.ns_per_run \
	--threshold 5% --baseline 100 --kernel 6.1.0-13 --variant drop)
[ "$rc" = 0 ] || { cat "$tmp/judge.out"; fail "--variant drop chooses one sample (0), got $rc"; }
echo "ok: bisect run exit codes 128 / 129, several variants refused unless --variant"
