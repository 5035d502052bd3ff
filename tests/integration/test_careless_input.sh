#!/bin/bash
# test_careless_input.sh - what a careless user gives where a file is read is refused at
# once with a message naming the file (docs/cli.md, "Files"): a FIFO as a plan, as a BPF
# object of a plan, as a CSV to import, as a token file, a key file or the agent's
# config (a FIFO used to hang `plan check` until a writer came: each command runs under
# a timeout, and 124 is a failure); a directory as a plan. Imports: a NUL byte in a CSV
# (the lines after it were dropped, exit 0) and invalid UTF-8 in a bpftool snapshot are
# refused at FILE:LINE and store nothing; plan and host names follow the plan-name rule.
# No lab: the CLI and the agent's option parsing only, a few seconds.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/bpflab-input-XXXXXX)
cleanup_later "$tmp"
db="$tmp/lab.db"
agent="$bin/bpflab-agent"

# expect CODE PATTERN DESCRIPTION -- COMMAND...: COMMAND exits CODE within 10 s and its
# stderr matches PATTERN
expect() {
	local code=$1 pat=$2 what=$3 rc=0
	shift 4
	timeout 10 "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null || rc=$?
	if [ "$rc" = 124 ]; then
		fail "$what: still running after 10 s (blocked on the file?)"
	elif [ "$rc" != "$code" ] || { [ -n "$pat" ] && ! grep -qF -- "$pat" "$tmp/err"; }; then
		fail "$what: exit $rc (want $code), stderr: $(head -c 600 "$tmp/err")"
	else
		ok "$what: exit $code, '$(head -n 1 "$tmp/err")'"
	fi
}
notreg="not a regular file (a FIFO, device or socket)"

mkfifo "$tmp/plan.yaml" "$tmp/values.csv" "$tmp/token" "$tmp/key" "$tmp/agent.yaml"
expect 1 "cannot open plan '$tmp/plan.yaml': $notreg" "a FIFO as a plan" -- \
	"$bpflab" plan check "$tmp/plan.yaml"
expect 1 "cannot open plan '$tmp': Is a directory" "a directory as a plan" -- \
	"$bpflab" plan check "$tmp"
mkdir "$tmp/obj"
mkfifo "$tmp/obj/evil.bpf.o"
sed 's#object: xdp_basic.bpf.o#object: ./evil.bpf.o#' "$top/plans/quickstart.yaml" \
	> "$tmp/obj/quickstart.yaml"
expect 1 "quickstart.yaml:24:50: cannot open object './evil.bpf.o': $notreg" \
	"a FIFO as a plan's BPF object" -- "$bpflab" plan check "$tmp/obj/quickstart.yaml"
expect 1 "cannot read '$tmp/values.csv': $notreg" "a FIFO as a CSV to import" -- \
	"$bpflab" --db "$db" result import --plan hand "$tmp/values.csv"
expect 2 "cannot read token file '$tmp/token': $notreg" "a FIFO as a token file" -- \
	"$bpflab" serve --db "$db" --http-token "$tmp/token"
expect 1 "cannot read key '$tmp/key': $notreg" "a FIFO as a key file" -- \
	env BPFLAB_KEY="$tmp/key" BPFLAB_SERVER_KEY="$tmp/key" \
	BPFLAB_COORDINATOR=tcp://127.0.0.1:9 "$bpflab" run list
expect 2 "cannot read config '$tmp/agent.yaml': $notreg" "a FIFO as the agent's config" -- \
	"$agent" --config "$tmp/agent.yaml" --name x --coordinator tcp://127.0.0.1:9 --plaintext

# a NUL byte in line 3: the lines after it were silently dropped
printf 'variant,prog,set,value\nbase,p,1,30\nbase,p,2,31\0\nbase,p,3,32\n' > "$tmp/nul.csv"
expect 1 "$tmp/nul.csv:3: a NUL byte (not a text file?)" "a CSV with a NUL byte" -- \
	"$bpflab" --db "$db" result import --plan hand "$tmp/nul.csv"
printf 'variant,prog,set,value\nbase,caf\xe9,1,30\n' > "$tmp/latin1.csv"
expect 1 "$tmp/latin1.csv:2: not UTF-8 text" "a Latin-1 CSV" -- \
	"$bpflab" --db "$db" result import --plan hand "$tmp/latin1.csv"
printf '[{"id": 7, "name": "p",\n "run_cnt": 1, "run_time_ns": 10, "tag": "\xff"}]\n' \
	> "$tmp/before.json"
printf '[{"id": 7, "name": "p", "run_cnt": 5, "run_time_ns": 90}]\n\0' > "$tmp/after.json"
expect 1 "$tmp/before.json:2: not UTF-8 text" "a bpftool snapshot with invalid UTF-8" -- \
	"$bpflab" --db "$db" result import --plan hand --variant v --before "$tmp/before.json" \
	--after "$tmp/after.json"
printf '[{"id": 7, "name": "p", "run_cnt": 1, "run_time_ns": 10}]\n' > "$tmp/before.json"
expect 1 "$tmp/after.json:2: a NUL byte (not a text file?)" \
	"a bpftool snapshot with a NUL byte after the JSON" -- \
	"$bpflab" --db "$db" result import --plan hand --variant v --before "$tmp/before.json" \
	--after "$tmp/after.json"

# names as plans name themselves
printf 'base,p,1,30\n' > "$tmp/ok.csv"
rule="expected a name of 1 to 128 letters, digits, '.', '_' and '-'"
expect 2 "--plan: $rule" "markup as a plan name" -- \
	"$bpflab" --db "$db" result import --plan '<b>x</b>' "$tmp/ok.csv"
expect 2 "--host: $rule" "100,000 characters as a host name" -- \
	"$bpflab" --db "$db" result import --plan hand --host "$(head -c 100000 /dev/zero | tr '\0' h)" \
	"$tmp/ok.csv"
expect 2 "--plan: $rule" "invalid UTF-8 as a plan name" -- \
	"$bpflab" --db "$db" result import --plan "$(printf 'caf\xe9')" "$tmp/ok.csv"
check "nothing was imported" test ! -e "$db" -o "$(sqlite3 "$db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" = 0

# and the same file, named well, is taken
expect 0 "" "a good import" -- "$bpflab" --db "$db" result import --plan hand-1.x \
	--host lab-h1 "$tmp/ok.csv"
check "the good import is one run of plan hand-1.x on host lab-h1" test \
	"$(sqlite3 "$db" "SELECT p.name || '@' || h.name FROM runs r JOIN plans p ON p.id = r.plan_id
		JOIN jobs j ON j.run_id = r.id JOIN hosts h ON h.id = j.host_id")" = "hand-1.x@lab-h1"
finish
