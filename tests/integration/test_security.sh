#!/bin/bash
# test_security.sh - CURVE on the lab in a box (docs/security.md): the allowed client
# submits and reads; a client whose key is not in the allow list cannot submit, list
# hosts or read results, and neither can a plaintext one; an agent with an unknown key
# cannot register; every refusal is logged with the key's first characters; SIGHUP
# reloads the allow list; bpflabd refuses plaintext on a non-loopback address, and the
# agent and the CLI refuse to go plaintext without --plaintext. Roles (docs/security.md,
# "Roles"): an agent's key cannot submit, cancel or start a bisect, a client's key cannot
# register as an agent, an agent's key cannot say hello as another host, each refusal
# logged; a key made before roles keeps bpflabd from
# starting (and a SIGHUP from taking it) with the command that fixes it.
. "$(dirname "$0")/lib.sh"

lab_start 1
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
intruder_pid=
cleanup() {
	local rc=$?
	[ -z "$intruder_pid" ] || kill -KILL "$intruder_pid" 2>/dev/null || true
	rm -rf "$tmp"
	set +e
	(exit $rc)	# on_exit reads the test's status from $?
	on_exit
}
trap cleanup EXIT
log="$BPFLAB_LAB_DIR/bpflabd.log"
keys="$BPFLAB_LAB_DIR/keys"
# an agent named NAME with the secret key KEY in h1's namespace, logging to LOG, in the
# background (intruder_pid; cleanup kills it if the test stops early)
intruder_start() { # NAME KEY LOG
	ip netns exec "bpflab-$LAB_NAME-h1" "$bin/bpflab-agent" \
		--coordinator "tcp://198.18.$LAB_SUBNET.1:5555" --name "$1" --port a=port-a \
		--key "$2" --server-key "$keys/coordinator.key" \
		--log "$3" </dev/null >/dev/null 2>&1 &
	intruder_pid=$!
}
intruder_stop() {
	kill -TERM "$intruder_pid" 2>/dev/null || true
	wait "$intruder_pid" 2>/dev/null || true
	intruder_pid=
}

check "bpflabd runs with CURVE" grep -q "CURVE on, public key" "$log"
check "the client key is a 0600 file" test "$(stat -c %a "$BPFLAB_KEY")" = 600
check "keys are not overwritten" \
	sh -c "! '$bpflab' keygen --role client --out '$keys' --name client 2>/dev/null"
check "the lab's keys have their roles" \
	grep -q 'role = "agent"' "$keys/h1.key" "$BPFLAB_LAB_DIR/authorized/h1.key"

# --- the allowed client works: a short run, its hosts and its results
out=$("$bpflab" run submit "$top/plans/quickstart.yaml" -s traffic.duration=1s \
	-s traffic.warmup=500ms -s repeat=1 --wait) || true
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "allowed client: run submitted and done (run '$run')" \
	test -n "$run" -a "$(sql "SELECT state FROM runs WHERE id=${run:-0}")" = done
check "allowed client: host list shows h1" sh -c "'$bpflab' host list | grep -q '^h1 '"
check "allowed client: result show" "$bpflab" result show "$run"

# --- a client with a key that is not allowed gets nothing
"$bpflab" keygen --role client --out "$tmp" --name intruder > "$tmp/intruder.pub" 2>/dev/null
intruder=$(cat "$tmp/intruder.pub")
runs_before=$(sql "SELECT count(*) FROM runs")
as_intruder() { BPFLAB_KEY="$tmp/intruder.key_secret" "$bpflab" --timeout 2 "$@"; }
rc=0; as_intruder run submit "$top/plans/quickstart.yaml" >/dev/null 2>"$tmp/submit.err" || rc=$?
check "unknown key: submit fails (exit $rc)" test "$rc" = 1
check "unknown key: the error says why" grep -q "allow list" "$tmp/submit.err"
check "unknown key: nothing stored" test "$(sql "SELECT count(*) FROM runs")" = "$runs_before"
check "unknown key: host list fails" sh -c "! BPFLAB_KEY='$tmp/intruder.key_secret' '$bpflab' --timeout 2 host list >/dev/null 2>&1"
check "unknown key: result show fails" sh -c "! BPFLAB_KEY='$tmp/intruder.key_secret' '$bpflab' --timeout 2 result show '${run:-1}' >/dev/null 2>&1"
check "unknown key: refusal logged with the key's first characters" \
	grep -qF "key '${intruder:0:8}...' is not in the allow list" "$log"

# --- plaintext clients: refused by the client itself without --plaintext, and by
# the coordinator with it (the CURVE handshake fails on the mechanism, before any key)
rc=0; env -u BPFLAB_KEY "$bpflab" host list >/dev/null 2>"$tmp/nokey.err" || rc=$?
check "no key, no --plaintext: the CLI refuses (exit $rc)" test "$rc" = 1
check "no key: the error names --plaintext" grep -q -- "--plaintext" "$tmp/nokey.err"
check "plaintext client: refused" \
	sh -c "! '$bpflab' --plaintext --timeout 2 host list >/dev/null 2>&1"

# --- an agent with an unknown key cannot register
"$bpflab" keygen --role agent --out "$tmp" --name rogue >/dev/null 2>&1
intruder_start rogue "$tmp/rogue.key_secret" "$tmp/rogue.log"
refused() { grep -qF "key '$(sed -n 's/.*public-key = "\(........\).*/\1/p' "$tmp/rogue.key")...'" "$log"; }
wait_for 15 refused || true
check "unknown agent: refusal logged" refused
sleep 1		# a hello that did get through would be stored by now
check "unknown agent: not in the host list" sh -c "! '$bpflab' host list | grep -q '^rogue '"
check "unknown agent: never stored" test "$(sql "SELECT count(*) FROM hosts WHERE name='rogue'")" = 0
intruder_stop

# --- an agent key speaks only for its own host: h1's key (authorized/h1.key) saying
# hello as h2 is refused, the error naming both, and h2 is never stored; h1's own hello
# (the lab's agent) stands
intruder_start h2 "$keys/h1.key_secret" "$tmp/impostor.log"
impostor_refused() { grep -q "refused an agent message 'hello' for host 'h2' from the key of host 'h1': an agent key speaks only for its own host" "$log"; }
wait_for 15 impostor_refused || true
check "h1's key as h2: refusal logged by bpflabd" impostor_refused
check "h1's key as h2: the agent is told, naming both hosts" \
	grep -q "refused: this connection's key belongs to host 'h1', and it may not speak for host 'h2'" \
	"$tmp/impostor.log"
check "h1's key as h2: h2 not in the host list" sh -c "! '$bpflab' host list | grep -q '^h2 '"
check "h1's key as h2: never stored" test "$(sql "SELECT count(*) FROM hosts WHERE name='h2'")" = 0
intruder_stop
check "h1's key as h1: registered, and still in the host list" \
	sh -c "grep -q \"agent 'h1' registered\" '$log' && '$bpflab' host list | grep -q '^h1 '"

# --- roles: the key on h1's disk cannot act as a client; each command is refused at
# its first request, and bpflabd logs it (bisect start asks 'query' or 'host_list'
# before 'bisect_start', which test_auth.c sends directly)
as_agent() { BPFLAB_KEY="$keys/h1.key_secret" "$bpflab" --timeout 5 "$@"; }
refusals() { grep -c "refused a client message '[a-z_]*' from key 'h1.key' (role agent): only client keys may send to the clients socket" "$log" || true; }
runs_before=$(sql "SELECT count(*) FROM runs")
sessions_before=$(sql "SELECT count(*) FROM bisect_sessions")
n0=$(refusals)
rc=0; as_agent run submit "$top/plans/quickstart.yaml" >/dev/null 2>"$tmp/asagent.err" || rc=$?
check "agent key: run submit refused (exit $rc)" test "$rc" = 1
check "agent key: the error names the role" \
	grep -q "refused: key 'h1.key' has the role agent, and only client keys may send 'submit'" \
	"$tmp/asagent.err"
check "agent key: nothing submitted" test "$(sql "SELECT count(*) FROM runs")" = "$runs_before"
check "agent key: the submit refusal logged by bpflabd" \
	grep -q "refused a client message 'submit' from key 'h1.key' (role agent)" "$log"
n1=$(refusals)
rc=0; as_agent run cancel "${run:-1}" >/dev/null 2>"$tmp/asagent.err" || rc=$?
check "agent key: run cancel refused (exit $rc)" test "$rc" = 1
check "agent key: the run is not cancelled" \
	test "$(sql "SELECT state FROM runs WHERE id=${run:-0}")" = done
check "agent key: the cancel refusal logged by bpflabd" \
	grep -q "refused a client message 'run_cancel' from key 'h1.key' (role agent)" "$log"
n2=$(refusals)
printf '6.1\n6.2\n6.6\n' > "$tmp/kernels.txt"
rc=0; as_agent bisect start --plan quickstart --metric pps --good 6.1 --bad 6.6 \
	--kernels "$tmp/kernels.txt" >/dev/null 2>"$tmp/asagent.err" || rc=$?
n3=$(refusals)
check "agent key: bisect start refused (exit $rc)" test "$rc" = 1
check "agent key: bisect start says why" grep -q "has the role agent" "$tmp/asagent.err"
check "agent key: no bisect session" \
	test "$(sql "SELECT count(*) FROM bisect_sessions")" = "$sessions_before"
check "agent key: every refusal logged ($n0 -> $n1 -> $n2 -> $n3)" \
	test "$n1" -gt "$n0" -a "$n2" -gt "$n1" -a "$n3" -gt "$n2"
check "agent key: host list refused too" sh -c "! BPFLAB_KEY='$keys/h1.key_secret' '$bpflab' --timeout 5 host list >/dev/null 2>&1"

# --- roles: a client key cannot register as an agent; bpflab-agent itself refuses
# it, and the coordinator refuses it from an agent that does not look (the role line
# taken off its copy of the secret, as an attacker would)
rc=0; "$bin/bpflab-agent" --coordinator "tcp://198.18.$LAB_SUBNET.1:5555" --port a=lo \
	--key "$keys/client.key_secret" --server-key "$keys/coordinator.key" \
	2>"$tmp/agent-client.err" || rc=$?
check "client key: bpflab-agent refuses it (exit $rc)" test "$rc" = 1
check "client key: bpflab-agent says why" grep -q "has the role client; an agent needs an agent key" \
	"$tmp/agent-client.err"
grep -v '^ *role' "$keys/client.key_secret" > "$tmp/client-norole.key_secret"
chmod 600 "$tmp/client-norole.key_secret"
intruder_start fake "$tmp/client-norole.key_secret" "$tmp/fake.log"
fake_refused() { grep -q "to the agents socket: key '.*' ('client.key') has the role client; only agent keys may register as agents" "$log"; }
wait_for 15 fake_refused || true
check "client key as agent: refusal logged by bpflabd" fake_refused
sleep 1
check "client key as agent: not in the host list" sh -c "! '$bpflab' host list | grep -q '^fake '"
check "client key as agent: never stored" test "$(sql "SELECT count(*) FROM hosts WHERE name='fake'")" = 0
intruder_stop

# --- migration: a key made before roles is not taken, and the message says what to do
mkdir "$tmp/old-auth"
grep -v '^ *role' "$keys/h1.key" > "$tmp/old-auth/h1.key"
rc=0; "$bin/bpflabd" --agents "ipc://$tmp/oa.sock" --clients "ipc://$tmp/oc.sock" \
	--db "$tmp/old.db" --key "$keys/coordinator.key_secret" --authorized "$tmp/old-auth" \
	2>"$tmp/old.err" || rc=$?
check "key without a role: bpflabd refuses to start (exit $rc)" test "$rc" != 0
check "key without a role: the message names the key and the fix" \
	grep -q "key 'h1.key' has no role (made before roles); give each key its role with 'bpflab keygen --set-role agent|client FILE'" "$tmp/old.err"
"$bpflab" keygen --set-role agent "$tmp/old-auth/h1.key" 2>/dev/null
check "keygen --set-role: the old key has its role" grep -q 'role = "agent"' "$tmp/old-auth/h1.key"
grep -v '^ *role' "$keys/client.key" > "$BPFLAB_LAB_DIR/authorized/old-client.key"
kill -HUP "$(cat "$BPFLAB_LAB_DIR/bpflabd.pid")"
kept() { grep -q "key 'old-client.key' has no role.*; keeping the 2 allowed keys" "$log"; }
wait_for 5 kept || true
check "SIGHUP with a key without a role: the old list is kept, and said" kept
check "SIGHUP with a key without a role: the client still works" "$bpflab" host list
rm -f "$BPFLAB_LAB_DIR/authorized/old-client.key"

# --- SIGHUP reloads the allow list: the intruder's certificate added, it gets in
cp "$tmp/intruder.key" "$BPFLAB_LAB_DIR/authorized/"
kill -HUP "$(cat "$BPFLAB_LAB_DIR/bpflabd.pid")"
ok_after_reload=1
for _ in 1 2 3 4 5 6 7 8 9 10; do
	as_intruder host list >/dev/null 2>&1 && { ok_after_reload=0; break; }
	sleep 0.3
done
check "SIGHUP: the added key is allowed" test "$ok_after_reload" = 0
check "SIGHUP: reload logged with the number of keys" grep -q "reloaded: 3 keys allowed" "$log"

# --- plaintext only on loopback/ipc, and only when asked for
rc=0; "$bin/bpflabd" --agents "tcp://198.18.$LAB_SUBNET.1:5556" --clients "ipc://$tmp/c.sock" \
	--db "$tmp/x.db" --plaintext 2>"$tmp/plain.err" || rc=$?
check "bpflabd --plaintext on 198.18.x: refused (exit $rc)" test "$rc" != 0
check "bpflabd names the endpoint" grep -q "refusing plaintext on 'tcp://198.18.$LAB_SUBNET.1:5556'" \
	"$tmp/plain.err"
rc=0; "$bin/bpflabd" --agents "tcp://198.18.$LAB_SUBNET.1:5556" --clients "ipc://$tmp/c.sock" \
	--db "$tmp/x.db" 2>"$tmp/nokey.err" || rc=$?
check "bpflabd without --key: refused (exit $rc)" test "$rc" = 2
rc=0; "$bin/bpflab-agent" --coordinator "tcp://198.18.$LAB_SUBNET.1:5555" --port a=lo \
	2>"$tmp/agent.err" || rc=$?
check "agent without --key or --plaintext: refused (exit $rc)" test "$rc" = 2
finish
