#!/bin/bash
# test_xdp_modes.sh - XDP modes per port, on a 1-host lab in a box whose agent gets a
# generic-only port besides its veth ones: port x, a dummy device (an ifb where the
# kernel has no dummy; neither has native XDP). The agent is restarted with
# --port x=port-x (lab kill-agent saves its command line, start-agent runs it again).
#
# - inventory: port b (veth) has XDP modes native and generic, port x generic only
#   (host show, text and -j);
# - run submit of a plan asking mode native on x is refused (exit 1) naming host, port,
#   interface, driver, modes and variant, nothing stored; mode native on b is fine;
# - mode auto on b and x: the run is done, the jobs' envs say native on b and generic on
#   x (xdp_mode, xdp_auto), result show prints both, and the programs were attached that
#   way (bpftool net show while a longer job runs).
. "$(dirname "$0")/lib.sh"

lab_start 1
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"
ns="bpflab-$LAB_NAME-h1"

# --- a generic-only port in h1's namespace, and the agent restarted with it
kind=dummy
ip -n "$ns" link add port-x type dummy 2>/dev/null || { kind=ifb; ip -n "$ns" link add port-x type ifb; }
ip -n "$ns" link set port-x up
echo "port x: a $kind device"
"$top/lab/lab" kill-agent h1 --name "$LAB_NAME"
printf -- '--port\nx=port-x\n' >> "$BPFLAB_LAB_DIR/h1/agent.cmdline"
"$top/lab/lab" start-agent h1 --name "$LAB_NAME"
has_x() { "$bpflab" -j host show h1 2>/dev/null | grep -q '"port-x"' &&
	[ "$(sql "SELECT state FROM hosts WHERE name='h1'")" = idle ]; }
check "h1 is back with port x" wait_for 20 has_x

# --- the inventory
"$bpflab" -j host show h1 > "$tmp/h1.json"
port_json() { # ROLE: the port's inventory entry, compact
	python3 -c 'import json,sys
h = json.load(open(sys.argv[1]))
print(json.dumps([p for p in h["inventory"]["ports"] if p["role"] == sys.argv[2]][0]))' "$tmp/h1.json" "$1"
}
xdp_of() { # ROLE KEY
	python3 -c 'import json,sys
h = json.load(open(sys.argv[1]))
p = [p for p in h["inventory"]["ports"] if p["role"] == sys.argv[2]][0]
v = p.get("xdp", {}).get(sys.argv[3])
print(",".join(v) if isinstance(v, list) else v)' "$tmp/h1.json" "$1" "$2"
}
echo "port b: $(port_json b)"
echo "port x: $(port_json x)"
check "port b (veth): modes native,generic ($(xdp_of b modes))" test "$(xdp_of b modes)" = native,generic
check "port x ($kind): modes generic ($(xdp_of x modes))" test "$(xdp_of x modes)" = generic
src=$(xdp_of x source)
check "modes from netlink or the probe ($src)" test "$src" = netlink -o "$src" = probe
[ "$src" = netlink ] &&
	check "port b features basic,redirect... ($(xdp_of b features))" \
		grep -q '^basic,redirect' <<<"$(xdp_of b features)"
"$bpflab" host show h1 > "$tmp/show.txt"
cat "$tmp/show.txt"
check "host show: port b native, generic" grep -Eq '^b +port-b +veth .* native, generic ' "$tmp/show.txt"
check "host show: port x generic only" grep -Eq "^x +port-x +$kind .* generic +" "$tmp/show.txt"

# --- the plans: XDP on b and x, no traffic, the load figures only
plan() { # FILE MODE_B MODE_X [DURATION]
	cat > "$1" <<YAML
name: xdp-modes
ports: [b, x]
traffic: {generator: none, duration: ${4:-100ms}, warmup: 0}
variants:
  drop:
    - {port: b, hook: xdp, mode: $2, object: xdp_basic.bpf.o, program: xdp_drop}
    - {port: x, hook: xdp, mode: $3, object: xdp_basic.bpf.o, program: xdp_pass}
metrics: [prog.jited_bytes]
YAML
}

# --- mode native on x: refused at submit
runs_before=$(sql "SELECT count(*) FROM runs")
plan "$tmp/native.yaml" native native
rc=0
"$bpflab" run submit "$tmp/native.yaml" > "$tmp/native.out" 2> "$tmp/native.err" || rc=$?
echo "refusal (exit $rc): $(cat "$tmp/native.err")"
check "mode native on x: exit status 1 (got $rc)" test "$rc" = 1
want="'h1': port 'x' (port-x, $kind) has XDP modes generic; the plan asks native (variant 'drop')"
check "the refusal names host, port, interface, driver, modes and variant" \
	grep -qF "no host matches the plan (hosts.match (any); ports b, x; 1 host connected; $want)" "$tmp/native.err"
rc=0
"$bpflab" run submit "$tmp/native.yaml" --hosts h1 > /dev/null 2> "$tmp/named.err" || rc=$?
check "--hosts h1: refused too (exit $rc: $(cat "$tmp/named.err"))" \
	grep -qF "host 'h1' cannot run plan 'xdp-modes': port 'x' (port-x, $kind) has XDP modes generic" "$tmp/named.err"
check "nothing stored" test "$(sql "SELECT count(*) FROM runs")" = "$runs_before"

# --- the agent's own check, for a job that got past the coordinator (an agent run by
# hand): mode native on x fails at attach, before traffic, naming port, driver and modes
cat > "$tmp/job.json" <<JSON
{"job": {"id": 1, "run": 1, "spec": {"plan": "p", "variant": "drop", "rep": 1, "point": {},
 "ports": ["x"], "traffic": {"generator": "none", "duration_ms": 100},
 "attach": [{"port": "x", "hook": "xdp", "mode": "native", "object": "xdp_basic.bpf.o",
             "program": "xdp_drop"}], "metrics": ["prog.jited_bytes"]}}}
JSON
rc=0
ip netns exec "$ns" "$bin/bpflab-agent" --once "$tmp/job.json" --port x=port-x \
	--bpf-dir "$top/build/bpf" > "$tmp/once.json" 2> "$tmp/once.err" || rc=$?
err=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("error"))' "$tmp/once.json" 2>/dev/null || true)
echo "agent --once (exit $rc): $err"
check "agent: mode native on x fails (exit $rc)" test "$rc" = 1
check "agent: the error names port, driver and modes" grep -qF \
	"to port 'x' ('port-x', driver $kind) as xdp native: Operation not supported (the port has XDP modes generic; mode auto would attach generic)" <<<"$err"

# --- mode native on b, generic on x: accepted and run
plan "$tmp/mixed.yaml" native generic
out=$("$bpflab" run submit "$tmp/mixed.yaml" --wait 2>&1) || true
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "native on b, generic on x: run $run done" test "$(sql "SELECT state FROM runs WHERE id=${run:-0}")" = done

# --- mode auto on both: native on b, generic on x, recorded and shown
plan "$tmp/auto.yaml" auto auto
out=$("$bpflab" run submit "$tmp/auto.yaml" --wait 2>&1) || true
echo "$out"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "mode auto: run $run done" test "$(sql "SELECT state FROM runs WHERE id=${run:-0}")" = done
env_mode() { # ROLE: the job's env xdp_mode and xdp_auto of port ROLE
	sql "SELECT json_extract(p.value, '\$.xdp_mode') || ',' || json_extract(p.value, '\$.xdp_auto')
		FROM jobs j JOIN host_envs e ON e.id = j.env_id, json_each(e.inventory, '\$.ports') p
		WHERE j.run_id = ${run:-0} AND json_extract(p.value, '\$.role') = '$1'"
}
check "env port b: xdp_mode native, xdp_auto ($(env_mode b))" test "$(env_mode b)" = native,1
check "env port x: xdp_mode generic, xdp_auto ($(env_mode x))" test "$(env_mode x)" = generic,1
"$bpflab" result show "$run" > "$tmp/result.txt"
cat "$tmp/result.txt"
check "result show: port b auto -> native" grep -qx '  port b: xdp mode auto -> native' "$tmp/result.txt"
check "result show: port x auto -> generic" grep -qx '  port x: xdp mode auto -> generic' "$tmp/result.txt"
"$bpflab" -j result show "$run" > "$tmp/result.json"
check "result show -j: hosts[0].xdp_auto" python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
sys.exit(r["hosts"][0].get("xdp_auto") != {"b": "native", "x": "generic"})' "$tmp/result.json"

# --- and the kernel agrees: while a job of mode auto runs, b has a driver program and
# x an skb one (ip link's "xdp" and "xdpgeneric")
plan "$tmp/long.yaml" auto auto 3s
sed -i 's/metrics: \[prog.jited_bytes\]/metrics: [prog.run_pps]/' "$tmp/long.yaml"
out=$("$bpflab" run submit "$tmp/long.yaml" 2>&1)
attached() { # IFNAME: xdp, xdpgeneric (ip link's first line), or nothing
	ip -n "$ns" link show "$1" 2>/dev/null | head -n 1 | grep -Eo ' xdp[a-z]* ' | tr -d ' '
}
both() { [ "$(attached port-b)" = xdp ] && [ "$(attached port-x)" = xdpgeneric ]; }
check "while it runs: port-b xdp (driver), port-x xdpgeneric" wait_for 30 both
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
done_run() { [ "$(sql "SELECT state FROM runs WHERE id=${run:-0}")" = done ]; }
check "the longer run is done" wait_for 60 done_run
nothing() { [ -z "$(attached port-b)$(attached port-x)" ]; }
check "nothing attached after it" wait_for 10 nothing

finish
