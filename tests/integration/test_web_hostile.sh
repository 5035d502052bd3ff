#!/bin/bash
# test_web_hostile.sh - the dashboard against hostile and careless clients (issue 23,
# docs/dashboard.md "Limits", docs/security.md "Dashboard"), the real `bpflab serve` and
# `bpflabd --http` over real SQLite files, no lab needed:
#
# - 112 slow clients (a request line, then a header line every 2 s: 80 from ten loopback
#   addresses, 40 from one more) while a normal GET /api/runs every second gets 200
#   within 2 s; 8 of the 40 refused at once (32 per address); every other slow one shut
#   down by the request deadline, 10 s after it connected (tests/integration/
#   slow_clients.py prints the figures);
# - DNS rebinding: Host attacker.example 421, an Origin of another site 403, with the
#   token or without; --http-host NAME makes NAME answer; a bad NAME exit 2;
# - /%ff and a parameter with invalid UTF-8: 400 naming it; the sign-in redirect to
#   //evil.example/ refused, to /runs kept;
# - SIGTERM while a page is being built ends `bpflab serve` (a page waiting for a
#   database locked by a writer) and `bpflabd --http` (the page of a 4000-job run)
#   within a second; bpflabd's --http-host.
. "$(dirname "$0")/lib.sh"

py=/usr/bin/python3
here=$(dirname "$0")
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
pids=()
web_cleanup() {
	local rc=$? p
	set +e
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$tmp"
	(exit "$rc")
	on_exit
}
trap web_cleanup EXIT

# serve DB [OPTIONS...]: `bpflab serve` on 127.0.0.1:0 in the background; $port, $spid
serve() {
	local db=$1
	shift
	: > "$tmp/url"
	"$bpflab" --db "$db" serve --http 127.0.0.1:0 "$@" > "$tmp/url" 2> "$tmp/serve.err" &
	spid=$!
	pids+=("$spid")
	wait_for 10 grep -q http "$tmp/url" || { cat "$tmp/serve.err" >&2; return 1; }
	port=$(sed 's|.*:\([0-9]*\)/$|\1|' "$tmp/url")
}
# code PATH [CURL OPTIONS...]: the status of GET PATH
code() {
	local path=$1
	shift
	curl -s --path-as-is -o "$tmp/body" -D "$tmp/head" -w '%{http_code}' -m 10 "$@" \
		"http://127.0.0.1:$port$path" || true
}
# stop_within PID SECONDS: SIGTERM PID; true when it is gone within SECONDS
stop_within() {
	local t0 t1
	t0=$(date +%s%N)
	kill -TERM "$1"
	wait "$1" 2>/dev/null || true
	t1=$(date +%s%N)
	stop_ms=$(((t1 - t0) / 1000000))
	[ "$stop_ms" -lt $(($2 * 1000)) ]
}

printf 'variant,prog,set,value\ndrop,xdp_drop,1,10.1\ndrop,xdp_drop,2,10.3\n' > "$tmp/k.csv"
"$bpflab" --db "$tmp/lab.db" result import "$tmp/k.csv" --plan k >/dev/null

# --- slow clients do not lock out a normal one
serve "$tmp/lab.db"
addrs=$(seq -s, -f '127.0.0.%g' 2 11)
"$py" "$here/slow_clients.py" "$port" "$addrs" 8 127.0.0.20 40 16 > "$tmp/slow.json"
echo "slow clients: $(cat "$tmp/slow.json")"
field() { "$py" -c "import json,sys; d=json.load(open('$tmp/slow.json')); print($1)"; }
check "112 slow clients: 5 normal requests all 200" \
	test "$(field "sum(s == 200 for s in d['normal_status'])")" = 5
check "112 slow clients: each normal request within 2 s ($(field "max(d['normal_s'])") s)" \
	test "$(field "int(max(d['normal_s']) < 2)")" = 1
check "32 per address: 8 of 40 from one address refused at once" \
	test "$(field "d['refused'].get('127.0.0.20', 0)")" = 8
check "no other address refused" test "$(field "sum(d['refused'].values())")" = 8
check "every slow client shut down 9-13 s after it connected" \
	test "$(field "int(all(t is not None and 9 <= t <= 13 for t in d['lived_s']))")" = 1
stop_within "$spid" 2 || true

# --- Host, Origin, UTF-8, redirect; without a token and with one
serve "$tmp/lab.db"
check "Host attacker.example: 421" test "$(code /api/runs -H "Host: attacker.example:$port")" = 421
check "  and no data" sh -c "! grep -q plan '$tmp/body'"
check "Host localhost: 200" test "$(code /api/runs -H "Host: localhost:$port")" = 200
check "Origin of another site: 403" \
	test "$(code /api/runs -H 'Origin: http://attacker.example')" = 403
check "Origin of this site: 200" test "$(code /api/runs -H "Origin: http://127.0.0.1:$port")" = 200
check "Referrer-Policy on an answer" grep -qi '^Referrer-Policy: no-referrer' "$tmp/head"
check "frame-ancestors 'none' on an answer" grep -qi "frame-ancestors 'none'" "$tmp/head"
check "/%ff: 400" test "$(code /%ff)" = 400
check "  naming the path" grep -q "the path is not valid UTF-8" "$tmp/body"
check "/api/history?plan=%ff: 400" test "$(code '/api/history?metric=m&plan=%ff')" = 400
check "  naming the parameter" grep -q "parameter 'plan': the value is not valid UTF-8" "$tmp/body"
stop_within "$spid" 2 || true
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$tmp/token"
token=$(cat "$tmp/token")
serve "$tmp/lab.db" --http-token "$tmp/token" --http-host dash.example
check "with a token: Host attacker.example 421 before the token" \
	test "$(code /api/runs -H "Host: attacker.example:$port")" = 421
check "--http-host dash.example: answered (401 without the token)" \
	test "$(code /api/runs -H 'Host: dash.example')" = 401
check "  200 with it" test "$(code /api/runs -H 'Host: dash.example' \
	-H "Authorization: Bearer $token")" = 200
check "sign-in to //evil.example/: 400" test "$(code "//evil.example/?token=$token")" = 400
check "  and no Location" sh -c "! grep -qi '^Location:' '$tmp/head'"
check "sign-in to /runs: 303" test "$(code "/runs?token=$token")" = 303
check "  to /runs" grep -qi '^Location: /runs' "$tmp/head"
stop_within "$spid" 2 || true
rc=0; "$bpflab" --db "$tmp/lab.db" serve --http 127.0.0.1:0 --http-host 'a b' \
	>/dev/null 2>"$tmp/bad.err" || rc=$?
check "--http-host 'a b': exit 2 ($rc)" test "$rc" = 2
check "  naming it" grep -q "bad --http-host 'a b'" "$tmp/bad.err"

# --- SIGTERM while a page is built: serve, its database locked by a writer
cp "$tmp/lab.db" "$tmp/slow.db"
sqlite3 "$tmp/slow.db" 'PRAGMA journal_mode = DELETE' >/dev/null
serve "$tmp/slow.db"
"$py" -c '
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
db.execute("UPDATE runs SET state = state WHERE id = 1")
print("locked", flush=True)
time.sleep(15)
' "$tmp/slow.db" > "$tmp/lock.out" &
pids+=("$!")
disown "$!"
wait_for 10 grep -q locked "$tmp/lock.out"
curl -s -o /dev/null -m 20 "http://127.0.0.1:$port/runs/1" &
sleep 0.5
check "serve: SIGTERM during a page ends it within 1 s" stop_within "$spid" 1
echo "serve stopped in $stop_ms ms"
check "  the page was being built" grep -q "answers still being built" "$tmp/serve.err"

# --- bpflabd --http: the page of a big run
"$py" -c "
print('variant,prog,set,value')
for v in range(4000):
    print('v%d,xdp_drop,1,%d.5' % (v, v % 97))" > "$tmp/big.csv"
"$bpflab" --db "$tmp/big.db" result import "$tmp/big.csv" --plan big >/dev/null
"$bin/bpflabd" --agents "ipc://$tmp/a.sock" --clients "ipc://$tmp/c.sock" --db "$tmp/big.db" \
	--plaintext --log "$tmp/bpflabd.log" --http 127.0.0.1:0 --http-host dash.example &
dpid=$!
pids+=("$dpid")
wait_for 10 grep -qs "dashboard at" "$tmp/bpflabd.log"
port=$(sed -n 's|.*dashboard at http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/bpflabd.log")
check "bpflabd --http: Host attacker.example 421" \
	test "$(code /api/runs -H "Host: attacker.example:$port")" = 421
check "bpflabd --http-host dash.example: 200" test "$(code /api/runs -H 'Host: dash.example')" = 200
curl -s -o /dev/null -m 60 "http://127.0.0.1:$port/runs/1" &
sleep 0.5
check "bpflabd: SIGTERM during a page ends it within 1 s" stop_within "$dpid" 1
echo "bpflabd stopped in $stop_ms ms ($(grep -c 'still being built' "$tmp/bpflabd.log") page left to the exit)"
finish
