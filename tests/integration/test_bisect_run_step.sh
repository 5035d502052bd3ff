#!/bin/bash
# test_bisect_run_step.sh - `git bisect run` with `bpflab bisect run` as the judge finds
# a planted +20 % step in a program's cost, measuring through the coordinator on a lab
# in a box host (real XDP on veth, bpf_stats run time), and stops (exit 128) instead of
# skipping every commit when the tool itself fails.
#
# A 24-commit git repository stands for a kernel tree: each commit changes a file of
# its own (as commits of a tree do) and carries ROUNDS, the rounds of
# bpf/xdp_loop.bpf.c's loop a kernel built there would cost: 1000 up to commit STEP
# (default 15), 1200 from it on (+20 % of the loop; prog.ns_per_run includes a few ns
# of fixed cost). The judge fills the `loops` map with the commit's rounds through the
# plan's `maps:` entry (-s variants.loop=...) and asks `bpflab bisect run --threshold
# 10% --baseline RUN --variant loop`, RUN being the plan as written (1000 rounds) on the
# same host and kernel: so every judgement runs the baseline's plan again, interleaved
# (rebaseline), and UNKNOWN measures more up to --max-reps.
#
# TRIES=N (default 1) repeats the bisection N times on the same lab and prints how many
# named the right commit, the repetitions per judged commit and the wall time;
# JUDGE_OPTS adds options to the judge ("--no-rebaseline --max-reps 5": the judge as it
# was before it settled, for comparison).
. "$(dirname "$0")/lib.sh"

tries=${TRIES:-1}
step=${STEP:-15}
tmp=$(mktemp -d /tmp/bpflab-bisect-step-XXXXXX)
cleanup_later "$tmp"
t0=$(date +%s)
lab_start 1

cat > "$tmp/loop.yaml" <<'EOF'
name: bisect-loop
description: cost per run of xdp_loop with the rounds of a commit
hosts:
  count: 1
ports: [a, b]
traffic:
  generator: xdp-live
  from: a
  packet: {size: 64, proto: udp4, flows: 1}
  duration: 300ms
  warmup: 100ms
variants:
  loop:
    - {port: b, hook: xdp, mode: native, object: xdp_loop.bpf.o, program: xdp_loop,
       maps: {loops: [{key: 0, value: 1000}]}}
repeat: 5
metrics: [prog.ns_per_run]
EOF

out=$("$bpflab" run submit "$tmp/loop.yaml" --wait 2>&1) || { echo "$out"; fail "baseline run failed"; }
base=$(echo "$out" | sed -n 's/^run \([0-9]*\) submitted.*/\1/p' | head -n 1)
[ -n "$base" ] || { echo "$out"; fail "no baseline run id"; finish; }
ok "baseline run $base stored (1000 rounds)"

# the "kernel tree": 24 commits, the step at commit $step
repo="$tmp/repo"
git init -q "$repo"
(
	cd "$repo"
	git config user.email t@example.invalid
	git config user.name bisect-test
	mkdir -p net/core
	for i in $(seq 1 24); do
		echo "change $i" > "net/core/file$i.c"
		if [ "$i" -lt "$step" ]; then echo 1000; else echo 1200; fi > ROUNDS
		git add -A
		git commit -q -m "commit $i"
	done
)

# what git runs at each commit; the exit code, rounds and repetitions go to a log
cat > "$tmp/judge.sh" <<EOS
#!/bin/sh
r=\$(cat ROUNDS)
rc=0
"$bpflab" -j bisect run --plan "$tmp/loop.yaml" --metric prog.ns_per_run --threshold 10% \\
	--baseline $base --variant loop ${JUDGE_OPTS:-} \\
	-s "variants.loop=[{port: b, hook: xdp, mode: native, object: xdp_loop.bpf.o, program: xdp_loop, maps: {loops: [{key: 0, value: \$r}]}}]" \\
	> "$tmp/judge.json" || rc=\$?
n=\$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j.get("n", "-"), j.get("n_baseline", "-"), "%+.1f" % j.get("delta_pct", 0), j.get("rebaseline"))' "$tmp/judge.json" 2>/dev/null || echo "- - - -")
echo "\$(git log -1 --format=%s) \$r \$rc \$n" >> "$tmp/codes"
exit \$rc
EOS
chmod +x "$tmp/judge.sh"

right=0
for try in $(seq 1 "$tries"); do
	: > "$tmp/codes"
	s0=$(date +%s)
	(
		cd "$repo"
		git checkout -q master	# every try over the whole history, commit 1 .. 24
		git bisect start HEAD "$(git rev-list --max-parents=0 HEAD)" >/dev/null
		git bisect run "$tmp/judge.sh" > "$tmp/bisect.out" 2>&1 || true
		culprit=$(sed -n "s/^\([0-9a-f]\{40\}\) is the first bad commit.*/\1/p" "$tmp/bisect.out")
		: > "$tmp/culprit"
		[ -n "$culprit" ] && git log -1 --format=%s "$culprit" > "$tmp/culprit"
		git bisect reset >/dev/null 2>&1 || true
	)
	culprit=$(cat "$tmp/culprit")
	[ "$culprit" = "commit $step" ] && right=$((right + 1))
	echo "--- try $try: '$culprit' in $(($(date +%s) - s0)) s; (commit, rounds, exit, n, n_baseline, delta %, rebaseline):"
	cat "$tmp/codes"
done
echo "bisect: $right of $tries named commit $step"
check "git bisect run names commit $step as the first bad one ($right of $tries)" \
	test "$right" -eq "$tries"
# every code matches what the commit carries: 1000 rounds good, 1200 bad, never skipped
# on a quiet machine (the judge measures more instead)
bad=$(awk '($2 == 1000 && $3 != 0) || ($2 == 1200 && $3 != 1)' "$tmp/codes")
check "each exit code of the last try matches its commit's rounds" test -z "$bad"
[ -n "${JUDGE_OPTS:-}" ] || check "every judgement ran the baseline's plan again" \
	sh -c "! awk '{ print \$NF }' '$tmp/codes' | grep -qv True"

# a failure of the tool stops git bisect run (128) instead of skipping every commit
(
	cd "$repo"
	git bisect start HEAD "$(git rev-list --max-parents=0 HEAD)" >/dev/null
	BPFLAB_COORDINATOR="ipc://$tmp/nobody.sock" git bisect run sh -c \
		"\"$bpflab\" --timeout 1 bisect run --plan '$tmp/loop.yaml' \
		--metric prog.ns_per_run --threshold 10% --baseline $base --variant loop" \
		> "$tmp/stop.out" 2>&1 || true
	git bisect log > "$tmp/stop.log" 2>&1 || true
	git bisect reset >/dev/null 2>&1 || true
)
check "no coordinator: git bisect run stops at the first commit (exit 128)" \
	sh -c "grep -q 'exit code 128' '$tmp/stop.out' && ! grep -q '^git bisect skip' '$tmp/stop.log'"
rc=0
"$bpflab" bisect run --plan "$tmp/loop.yaml" --metric prog.ns_per_run --threshold 10% \
	--baseline $base --frob >/dev/null 2>&1 || rc=$?
check "bad usage exits 129 (got $rc)" test "$rc" -eq 129
echo "test $(($(date +%s) - t0)) s"
finish
