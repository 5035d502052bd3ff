#!/bin/bash
# test_kernel_provider.sh - a lab host that switches its own kernel (docs/agent.md,
# "Kernel provider"; docs/protocol.md, "Kernel providers"): one QEMU guest g1 boots
# kernel A with a kernel provider in its agent's --config (BPFLAB_GUEST_KEXEC=1:
# lab/guest/kexec-provider.sh over a kernel cache), which lists the cached kernels in its
# inventory. Checks, through the coordinator and the real agent in the guest:
#   - `bpflab host boot g1 KERNEL` for a kernel the host does not offer is refused, with
#     a message that names what it offers;
#   - a kernel that the provider lists but cannot boot (its image is not a kernel: the
#     real kexec -l in the guest refuses it) fails with the provider's message, the
#     coordinator shows the error in host list and the host stays usable on kernel A;
#   - `bpflab host boot g1 B --wait` switches g1 to B by a real kexec inside the guest:
#     the same host (same id) comes back with kernel.release B, a short quickstart run
#     runs on it and its stored job environments say B;
#   - back to A with bpflabd killed (SIGKILL) right after `host boot` and started again
#     while the guest kexecs: the new bpflabd knows the switch from its database (host
#     list: booting), refuses a run for the kernel g1 leaves, queues one for A without
#     running it while g1 switches, ends the switch "done" at g1's hello with A, and
#     the run then runs on A (docs/kernels.md, "Kernel switches and runs").
# Prints how long the kexec switch took (TCG, icount). The kernels come from the lab's
# kernel cache (fetched with lab/kernels when missing); the test's own cache directory
# holds links to them and the broken kernel, and is removed at the end.
#
# Skips (exit 0, "skipped: ...") when BPFLAB_SKIP_GUESTS=1, when the guest packages
# cannot be installed, or when the kernel packages cannot be fetched.
LAB_NAME=kprov
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guests.sh"
ka=${BPFLAB_TEST_KERNEL_A:-6.1.0-47-cloud-amd64}
kb=${BPFLAB_TEST_KERNEL_B:-6.1.0-53-cloud-amd64}
broken=6.1.0-0-broken-amd64

guests_require
command -v kexec >/dev/null || skip_test "kexec is missing (sh scripts/deps.sh guests)"
guests_fetch_kernels -q -t 300 "kernels '$ka' '$kb'" "$ka" "$kb"
da=$("$top/lab/kernels" dir "$ka")
db=$("$top/lab/kernels" dir "$kb")

guests_make_tmp
# the test's kernel cache: A and B (links into the real cache) and a kernel whose image
# is not a kernel, which the provider lists and kexec refuses
mkdir -p "$tmp/cache/$broken/root/boot"
ln -s "$da" "$tmp/cache/$ka"
ln -s "$db" "$tmp/cache/$kb"
echo "not a kernel" > "$tmp/cache/$broken/root/boot/vmlinuz-$broken"
echo "not an initrd" > "$tmp/cache/$broken/initrd"

guests_lab_up "$ka" BPFLAB_KERNEL_CACHE="$tmp/cache" BPFLAB_GUEST_KEXEC=1 \
	BPFLAB_GUEST_TIMEOUT="${BPFLAB_GUEST_TIMEOUT:-150}"

# field FIELD (a Python expression on h, g1's host list entry)
g1() {
	cli -j host list | python3 -c 'import json, sys
hosts = json.load(sys.stdin)
hosts = hosts.get("hosts", hosts) if isinstance(hosts, dict) else hosts
h = [x for x in hosts if x["name"] == "g1"][0]
print(eval(sys.argv[1]))' "$1"
}

# --- the provider's kernels are in the inventory
offered=$(g1 '" ".join(sorted(h["inventory"].get("provider", {}).get("kernels", [])))')
echo "g1 runs $(g1 'h["kernel_release"]'), its provider offers: $offered"
check "g1 offers '$ka', '$kb' and '$broken' through its kernel provider" \
	test "$offered" = "$(printf '%s\n' "$ka" "$kb" "$broken" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
id_before=$(g1 'h["id"]')

# --- a kernel the host does not offer is refused
if cli host boot g1 9.9.9-nope > "$tmp/nope.out" 2>&1; then
	fail "host boot of a kernel g1 does not offer was not refused"
else
	cat "$tmp/nope.out"
	check "refused with a message naming what g1 offers" \
		grep -q "host 'g1' does not offer kernel '9.9.9-nope' (its kernel provider lists: " "$tmp/nope.out"
fi
if cli host boot g1 "$ka" > "$tmp/same.out" 2>&1; then
	fail "host boot of the kernel g1 runs was not refused"
else
	check "the kernel it runs already is refused" grep -q "runs kernel '$ka' already" "$tmp/same.out"
fi

# --- a provider that fails: reported back, shown in host list, the host stays usable
t0=$(date +%s.%N)
if timeout 120 "$bpflab" host boot g1 "$broken" --wait 90 > "$tmp/broken.out" 2>&1; then
	fail "host boot g1 $broken succeeded"
else
	echo "host boot g1 $broken failed after $(echo "$(date +%s.%N) - $t0" | bc) s:"
	sed 's/^/    /' "$tmp/broken.out"
	check "the failure names the provider's reason (kexec -l refused the image)" \
		grep -q "did not switch to kernel '$broken': boot $broken: the kernel provider failed (exit status 1): kexec-provider: kexec -l .* failed: Cannot determine the file type" "$tmp/broken.out"
fi
check "host list shows the failed switch with its error" \
	test "$(g1 'h["boot"]["state"] + " " + str("kexec -l" in h["boot"]["error"])')" = "failed True"
cli host list | tee "$tmp/list.txt"
check "host list (text) names the failed switch" grep -q "host g1: switch to kernel $broken failed: " "$tmp/list.txt"
check "g1 is idle again, still on '$ka'" test "$(g1 'h["state"] + " " + h["kernel_release"]')" = "idle $ka"

# --- the real switch: kexec inside the guest, the agent comes back with kernel B
t0=$(date +%s.%N)
if timeout 200 "$bpflab" -j host boot g1 "$kb" --wait 180 > "$tmp/boot.out" 2> "$tmp/boot.err"; then
	switch_s=$(echo "$(date +%s.%N) - $t0" | bc)
	ok "host boot g1 $kb --wait"
else
	fail "host boot g1 $kb --wait"
	switch_s=-
fi
sed 's/^/    /' "$tmp/boot.err" "$tmp/boot.out"
echo "kexec switch $ka -> $kb under TCG (request to the agent's hello with $kb): $switch_s s"
echo "the switch as bpflabd and the guest's console saw it:"
grep -E "switching from kernel|'g1' gone|is back with kernel" "$BPFLAB_LAB_DIR/bpflabd.log" | sed 's/^/    /'
grep -aE "kernel provider:|switching to kernel|bpflab-guest: kernel|welcomed" "$BPFLAB_LAB_DIR/g1/console" | sed 's/^/    /'
check "host boot -j says g1 went from '$ka' to '$kb'" python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
assert (o["host"], o["from"], o["kernel"], o["waited"]) == ("g1", sys.argv[2], sys.argv[3], True), o
assert o["seconds"] > 0, o' "$tmp/boot.out" "$ka" "$kb"
check "host list: g1 runs '$kb', idle, switch done" \
	test "$(g1 'h["kernel_release"] + " " + h["state"] + " " + h["boot"]["state"]')" = "$kb idle done"
check "the same host came back (id $id_before)" test "$(g1 'h["id"]')" = "$id_before"
check "the guest's console shows the kexec into '$kb'" \
	grep -q "kernel $kb, timing" "$BPFLAB_LAB_DIR/g1/console"
check "bpflabd logged the switch" grep -q "host 'g1' is back with kernel '$kb'" "$BPFLAB_LAB_DIR/bpflabd.log"
"$top/lab/lab" status --name "$LAB_NAME" > "$tmp/status.txt" 2>&1
check "lab status names the kernel g1 runs now ('$kb')" grep -q "guest g1 ($kb): running" "$tmp/status.txt"

# --- a short plan runs on the switched host, and its results say kernel B
out=$(timeout 150 "$bpflab" run submit "$top/plans/quickstart.yaml" -s traffic.duration=300ms \
	-s traffic.warmup=100ms -s repeat=1 --hosts g1 --wait) || fail "quickstart on g1 after the switch"
echo "$out"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "run submitted and waited for (run '$run')" test -n "$run"
check "its 3 jobs are done" test "$(sql "SELECT count(*) FROM jobs WHERE run_id=${run:-0} AND state='done' AND $planned")" = 3
envs=$(sql "SELECT DISTINCT e.kernel_release FROM jobs j JOIN host_envs e ON e.id = j.env_id WHERE j.run_id=${run:-0}")
check "the stored job environments say kernel '$kb' ($envs)" test "$envs" = "$kb"

# --- back to A, with bpflabd killed right after the request and started again while the
# guest switches: the switch is in the database, so the new bpflabd still holds g1 back
# and ends the switch at its hello
t0=$(date +%s.%N)
cli host boot g1 "$ka" > "$tmp/boot2.out" 2>&1 || fail "host boot g1 $ka (to restart bpflabd during it)"
"$top/lab/lab" kill-coordinator --name "$LAB_NAME"
sleep 5
"$top/lab/lab" start-coordinator --name "$LAB_NAME"
for ((w = 0; w < 50; w++)); do cli host list >/dev/null 2>&1 && break; sleep 0.2; done
echo "bpflabd killed after 'host boot g1 $ka' and started again $(echo "$(date +%s.%N) - $t0" | bc) s later:"
grep -E "was switching from kernel" "$BPFLAB_LAB_DIR/bpflabd.log" | sed 's/^/    /'
check "the restarted bpflabd knows g1 is switching from '$kb' to '$ka' (host list)" \
	test "$(g1 'h["boot"]["state"] + " " + h["boot"]["from"] + " " + h["boot"]["kernel"]')" = "booting $kb $ka"
check "the restarted bpflabd logged the switch it read back" \
	grep -q "host 'g1' was switching from kernel '$kb' to '$ka' when the coordinator stopped" "$BPFLAB_LAB_DIR/bpflabd.log"
qs=("$top/plans/quickstart.yaml" -s traffic.duration=300ms -s traffic.warmup=100ms -s repeat=1)
if cli run submit "${qs[@]}" -s "hosts.match.kernel=$kb" > "$tmp/old.out" 2>&1; then
	fail "a run for the kernel g1 leaves ('$kb') was not refused while it switches"
else
	sed 's/^/    /' "$tmp/old.out"
	check "a run for the kernel g1 leaves is refused, naming the switch" \
		grep -q "'g1' (switching to kernel '$ka'): kernel.release is '$ka', not '$kb'" "$tmp/old.out"
fi
if cli run submit "${qs[@]}" --hosts g1 > "$tmp/named.out" 2>&1; then
	fail "--hosts g1 was not refused while g1 switches"
else
	check "--hosts naming the switching host is refused" grep -q "host 'g1' is switching to kernel '$ka'" "$tmp/named.out"
fi
out=$(cli run submit "${qs[@]}" -s "hosts.match.kernel=$ka") || fail "a run for '$ka' while g1 switches"
echo "$out"
run2=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "a run for the kernel g1 switches to is queued on it (run '$run2')" test -n "$run2"
check "none of its jobs is handed out while g1 switches" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=${run2:-0} AND state='queued' AND attempts=0")" = 3
# (a host list that fails, the machine being busy, is asked again)
for ((w = 0; w < 200; w++)); do
	st=$(g1 'h["boot"]["state"]' 2>/dev/null) || st=
	[ -n "$st" ] && [ "$st" != booting ] && break
	sleep 1
done
echo "switch $kb -> $ka across the bpflabd restart: $(echo "$(date +%s.%N) - $t0" | bc) s"
echo "    host list: g1 $(g1 'h["state"], h["kernel_release"], h.get("boot")')"
grep -E "'g1'" "$BPFLAB_LAB_DIR/bpflabd.log" | tail -n 8 | sed 's/^/    /'
check "after the restart the switch ended 'done' at g1's hello with '$ka'" \
	test "$(g1 'h["boot"]["state"] + " " + h["kernel_release"] + " " + str(h["id"])')" = "done $ka $id_before"
check "the database has the three switches: broken failed, '$kb' done, '$ka' done" \
	test "$(sql "SELECT group_concat(kernel || ':' || state || ':' || (ended_ms IS NOT NULL), ' ') FROM (SELECT * FROM host_boots ORDER BY id)")" = "$broken:failed:1 $kb:done:1 $ka:done:1"
for ((w = 0; w < 150; w++)); do
	case "$(sql "SELECT state FROM runs WHERE id=${run2:-0}")" in done|failed|cancelled) break ;; esac
	sleep 1
done
check "the run queued during the switch is done: 3 jobs" \
	test "$(sql "SELECT state || ' ' || (SELECT count(*) FROM jobs WHERE run_id=${run2:-0} AND state='done' AND $planned) FROM runs WHERE id=${run2:-0}")" = "done 3"
envs=$(sql "SELECT DISTINCT e.kernel_release FROM jobs j JOIN host_envs e ON e.id = j.env_id WHERE j.run_id=${run2:-0}")
check "it ran on '$ka', the kernel it asked for ($envs)" test "$envs" = "$ka"

lab_stop
no_guest_processes() { ! pgrep -f "[q]emu-system.*bpflab-lab-$LAB_NAME/|[v]irtiofsd.*bpflab-lab-$LAB_NAME/" >/dev/null; }
check "no QEMU or virtiofsd of the lab is left" no_guest_processes
echo "whole test: $(($(date +%s) - t_start)) s"
finish
