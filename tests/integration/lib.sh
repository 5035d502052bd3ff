# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# lib.sh - shared helpers for the integration tests. Source it, then call lab_start N.
# Each test gets its own lab (name and management subnet from the test's name), torn
# down by an EXIT trap whether the test passes or fails.
set -eu
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin="${BPFLAB_BIN:-$top/build/bin}"
export BPFLAB_BIN="$bin"
bpflab="$bin/bpflab"
LAB_NAME=${LAB_NAME:-t$$}
LAB_NAME=${LAB_NAME:0:8}
# a management subnet no other lab on this machine uses (198.18.K.1 on a bridge)
if [ -z "${LAB_SUBNET:-}" ]; then
	for k in $(seq $((100 + $$ % 100)) 254) $(seq 100 254); do
		ip -4 -o addr show 2>/dev/null | grep -q " 198\.18\.$k\.1/" || { LAB_SUBNET=$k; break; }
	done
fi
export BPFLAB_LAB_DIR="/tmp/bpflab-lab-$LAB_NAME"
LAB_DB="$BPFLAB_LAB_DIR/bpflab.db"
failures=0

lab_stop() {
	"$top/lab/lab" down --name "$LAB_NAME" --purge >/dev/null 2>&1 || true
}

# Files and directories to remove when the test ends (after the lab is down).
cleanup_paths=()
cleanup_later() { cleanup_paths+=("$@"); }
# Mount points to unmount when the test ends, before the lab goes down (a test's tmpfs
# inside the lab's directory, which `lab down --purge` removes).
cleanup_mounts=()
cleanup_umount() { cleanup_mounts+=("$@"); }

on_exit() {
	local rc=$?
	if [ $rc -ne 0 ] && [ -d "$BPFLAB_LAB_DIR" ]; then
		echo "--- logs of lab $LAB_NAME (test failed with $rc)"
		tail -n 20 "$BPFLAB_LAB_DIR"/bpflabd.log "$BPFLAB_LAB_DIR"/h*/agent.log 2>/dev/null || true
	fi
	local m
	for m in ${cleanup_mounts[@]+"${cleanup_mounts[@]}"}; do
		mountpoint -q "$m" && { umount "$m" || umount -l "$m"; }
	done
	lab_stop
	[ ${#cleanup_paths[@]} -gt 0 ] && rm -rf "${cleanup_paths[@]}"
	exit $rc
}
trap on_exit EXIT
trap 'exit 130' INT TERM

lab_start() { # N [more options of lab/lab up]
	lab_stop
	"$top/lab/lab" up "$1" --name "$LAB_NAME" --subnet "$LAB_SUBNET" "${@:2}"
	# BPFLAB_COORDINATOR, and the client's CURVE keys BPFLAB_KEY and BPFLAB_SERVER_KEY
	# shellcheck source=/dev/null
	. "$BPFLAB_LAB_DIR/env"
	export BPFLAB_COORDINATOR BPFLAB_KEY BPFLAB_SERVER_KEY
}

# wait_for SECONDS COMMAND...: run the command every 0.1 s until it succeeds (0) or
# SECONDS have passed (1). For what happens "a moment later" (a link released, an ack
# delivered, a file spooled): a fixed sleep is too short on a loaded machine.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# A stand-in kernel tree in DIR for lab/kernels build without a compiler (the files
# build.sh looks for, a Makefile whose config targets and `prepare` play kbuild's: a
# release 6.12.0$(LOCALVERSION) in include/config/kernel.release). The caller appends its
# `vmlinux modules:` rule; with --modules-install a modules_install that writes a
# modules.builtin with the guest drivers built in.
standin_kernel_tree() { # DIR [--modules-install]
	mkdir -p "$1/arch/x86" "$1/scripts/kconfig"
	: > "$1/Kconfig"; : > "$1/arch/x86/Kconfig"; : > "$1/scripts/kconfig/merge_config.sh"
	cat > "$1/Makefile" <<'MK'
VERSION = 6
PATCHLEVEL = 12
SUBLEVEL = 0
EXTRAVERSION =
O ?= .
defconfig kvm_guest.config olddefconfig mod2noconfig:
	@mkdir -p $(O) && touch $(O)/.config
prepare:
	@mkdir -p $(O)/include/config && echo 6.12.0$(LOCALVERSION) > $(O)/include/config/kernel.release
MK
	[ "${2:-}" = --modules-install ] || return 0
	cat >> "$1/Makefile" <<'MK'
modules_install:
	@d=$(INSTALL_MOD_PATH)/lib/modules/$$(cat $(O)/include/config/kernel.release) && mkdir -p $$d && \
		printf 'kernel/drivers/virtio/virtio_pci.ko\nkernel/fs/fuse/virtiofs.ko\nkernel/drivers/net/virtio_net.ko\n' > $$d/modules.builtin
MK
}

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
# A skip, said on stdout and written down for tests/run-integration.sh, which lists it:
# skip_check REASON leaves out one check (the test goes on), skip_test REASON the whole
# test (exit 0). Skips are of the host: other labs up, guests that cannot run here.
skip_note() { [ -z "${BPFLAB_IT_SKIPS:-}" ] || echo "$*" >> "$BPFLAB_IT_SKIPS"; }
skip_check() { echo "skip: $*"; skip_note "check: $*"; }
skip_test() { echo "skipped: $*"; skip_note "test: $*"; exit 0; }
# Notes under a table are wrapped at 80 columns where their numbers put the break: a
# phrase of one may fall across two lines. These search the text with lines joined.
text_has() { tr '\n' ' ' < "$1" | tr -s ' ' | grep -qF -- "$2"; } # FILE PHRASE
text_count() { tr '\n' ' ' < "$1" | tr -s ' ' | grep -oF -- "$2" | wc -l; } # FILE PHRASE
check() { # DESCRIPTION COMMAND...: run the command, count a failure if it fails
	local what=$1; shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}
# The first 17 lines of a plan NAME whose variant `police` (bpf/xdp_police.bpf.c) on port
# b passes N frames/s and drops the rest, from GENERATOR's frames (default xdp-live) out of
# port a: a path of known capacity (test_search.sh, test_latency.sh); the caller adds its
# search (line 18).
police_plan() { # NAME N [GENERATOR]
	cat <<YAML
name: $1
ports: [a, b]
traffic:
  generator: ${3:-xdp-live}
  from: a
  packet: {size: 64}
  duration: 1s
variants:
  police:
    - port: b
      hook: xdp
      mode: native
      object: xdp_police.bpf.o
      program: xdp_police
      maps:
        config: [{key: 0, value: $2}]
      counters: [{map: stats, keys: {0: passed, 1: dropped}}]
YAML
}
no_lab_processes() { ! pgrep -f "bpflab-lab-$LAB_NAME/" >/dev/null; }
sql() { sqlite3 -batch -noheader "$LAB_DB" "$@"; }
# The jobs a plan expanded into at submit (a condition on jobs): a repetition that did
# not count (its job disturbed by others on the machine) gets another, queued by the
# coordinator with `added` set (docs/plans.md, "repeat"), so on a busy machine a run may
# hold more jobs than the plan's count. Checks of "N jobs" count these.
planned="added IS NULL"
# attempts JOB: "host:outcome ..." of the job's attempts in attempt order. group_concat
# takes rows in the order its FROM gives them; an ORDER BY beside it orders the one row
# it returns, not its input: the order goes in a subquery.
attempts() {
	sql "SELECT group_concat(x, ' ') FROM (SELECT h.name || ':' || a.outcome x
		FROM job_attempts a JOIN hosts h ON h.id = a.host_id WHERE a.job_id = ${1:-0}
		ORDER BY a.attempt)"
}
finish() {
	[ "$failures" -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
}
