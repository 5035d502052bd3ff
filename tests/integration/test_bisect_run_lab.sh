#!/bin/bash
# test_bisect_run_lab.sh - `bpflab bisect run` under a real `git bisect run`, measuring
# through the coordinator (no --db): every exit code comes from a run that the
# coordinator hands to the agent of a lab-in-a-box host (the host's kernel, real XDP on
# real veth, bpf_stats run time).
#
# A small git repository stands for a kernel tree: each of its 12 commits carries a file
# PROG naming the XDP program a kernel built at that commit would run: commits 1-8
# xdp_drop (xdp_basic.bpf.o), 9-12 xdp_drop_slow (xdp_slow.bpf.o: a 1000-round loop per
# frame), and commit 6, the first one git tests, test_agent.bpf.o's xdp_bad, which the
# verifier refuses (as if the kernel at that commit broke the program): its jobs fail on
# the agent, the run has no values, exit 125, and git skips the commit. The git bisect run script overrides the
# plan's only variant with the marker's program (-s variants.drop=[...]) and calls
# `bpflab bisect run --metric prog.ns_per_run --threshold 50% --baseline RUN
# --no-rebaseline`, RUN being a run of xdp_drop stored first, compared as stored (the
# rebaseline, the default on the baseline's own host and kernel, is
# test_bisect_run_step.sh's). git must name commit 9 as the first bad one; the exit
# codes the script saw are checked against what each commit carries.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/bpflab-bisect-lab-XXXXXX)
cleanup_later "$tmp"
t0=$(date +%s)
lab_start 1

# one variant, short traffic: a run is 5 jobs of about a second each
cat > "$tmp/cost.yaml" <<'EOF'
name: bisect-cost
description: cost per run of the XDP program a commit's kernel would run
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
  drop:
    - {port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o, program: xdp_drop}
repeat: 5
metrics: [prog.ns_per_run]
EOF

# the baseline: the plan as written (xdp_drop), through the coordinator
out=$("$bpflab" run submit "$tmp/cost.yaml" --wait 2>&1) || { echo "$out"; fail "baseline run failed"; }
base=$(echo "$out" | sed -n 's/^run \([0-9]*\) submitted.*/\1/p' | head -n 1)
[ -n "$base" ] || { echo "$out"; fail "no baseline run id"; finish; }
ok "baseline run $base stored"

# the "kernel tree"
repo="$tmp/repo"
git init -q "$repo"
(
	cd "$repo"
	git config user.email t@example.invalid
	git config user.name bisect-test
	for i in $(seq 1 12); do
		case $i in
		6) echo "test_agent.bpf.o xdp_bad $i" ;;
		[1-8]) echo "xdp_basic.bpf.o xdp_drop $i" ;;
		*) echo "xdp_slow.bpf.o xdp_drop_slow $i" ;;
		esac > PROG
		git add PROG
		git commit -q -m "commit $i"
	done
)

# what git runs at each commit: the plan with the marker's program, judged against the
# baseline; the exit code and the program go to a log
cat > "$tmp/judge.sh" <<EOS
#!/bin/sh
read obj prog n < PROG
rc=0
"$bpflab" bisect run --plan "$tmp/cost.yaml" --metric prog.ns_per_run --threshold 50% \\
	--baseline $base --variant drop --no-rebaseline \\
	-s "variants.drop=[{port: b, hook: xdp, mode: native, object: \$obj, program: \$prog}]" || rc=\$?
echo "\$(git log -1 --format=%s) \$prog \$rc" >> "$tmp/codes"
exit \$rc
EOS
chmod +x "$tmp/judge.sh"

(
	cd "$repo"
	git bisect start HEAD "$(git rev-list --max-parents=0 HEAD)" >/dev/null
	git bisect run "$tmp/judge.sh" > "$tmp/bisect.out" 2>&1 || true
	culprit=$(sed -n "s/^\([0-9a-f]\{40\}\) is the first bad commit.*/\1/p" "$tmp/bisect.out")
	[ -n "$culprit" ] && git log -1 --format=%s "$culprit" > "$tmp/culprit"
	git bisect reset >/dev/null 2>&1 || true
)
cat "$tmp/bisect.out"
printf "\n--- exit codes (commit, program, exit):\n"
cat "$tmp/codes"
culprit=$(cat "$tmp/culprit" 2>/dev/null || true)
check "git bisect run names commit 9 as the first bad one (got '$culprit')" \
	test "$culprit" = "commit 9"
# every code matches what the commit carries: fast 0, slow 1, refused by the verifier 125
bad=$(awk '($2 == "xdp_drop" && $3 != 0) || ($2 == "xdp_drop_slow" && $3 != 1) ||
	($2 == "xdp_bad" && $3 != 125)' "$tmp/codes")
check "each exit code matches its commit's program" test -z "$bad"
check "exit codes 0, 1 and 125 were all returned" \
	sh -c "grep -q ' 0\$' '$tmp/codes' && grep -q ' 1\$' '$tmp/codes' && grep -q ' 125\$' '$tmp/codes'"
# the runs behind the codes are real: one per judged commit, besides the baseline
judged=$(wc -l < "$tmp/codes")
runs=$(sql "SELECT count(*) FROM runs WHERE id > $base")
check "one coordinator run per judged commit ($judged commits, $runs runs)" \
	test "$runs" -eq "$judged"
failed=$(sql "SELECT count(*) FROM jobs j JOIN runs r ON r.id = j.run_id
	JOIN job_specs s ON s.id = j.spec_id
	WHERE r.id > $base AND j.state = 'failed' AND s.text LIKE '%xdp_bad%'")
check "the 125 comes from jobs that failed on the agent ($failed failed xdp_bad jobs)" \
	test "$failed" -ge 1
slow=$(sql "SELECT printf('%.1f', avg(s.value)) FROM samples s JOIN jobs j ON j.id = s.job_id
	WHERE s.metric = 'prog.ns_per_run' AND s.subject = 'xdp_drop_slow'")
fast=$(sql "SELECT printf('%.1f', avg(s.value)) FROM samples s JOIN jobs j ON j.id = s.job_id
	WHERE s.metric = 'prog.ns_per_run' AND s.subject = 'xdp_drop'")
echo "prog.ns_per_run: xdp_drop $fast ns, xdp_drop_slow $slow ns; test $(($(date +%s) - t0)) s"
finish
