# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# guests.sh - the shared start and end of the integration tests whose hosts are QEMU
# guests booting Debian kernels (test_guests.sh, test_guests_tc.sh, test_bisect_guests.sh,
# test_kernel_provider.sh; docs/kernels.md). Source it after lib.sh, then:
#
#   guests_require                  skip unless guests can run here
#   guests_fetch_kernels [-q] [-t SECONDS] WHAT KERNEL...
#                                   the kernels into the cache, or skip
#   guests_make_tmp                 $tmp, removed when the test ends
#   guests_lab_up KERNELS [VAR=VALUE...]
#                                   the lab with one guest per kernel, its env sourced
#   guests_finish                   lab down, no QEMU left, the whole time, the verdict
#
# Skipping is lib.sh's skip_test: "skipped: REASON" and exit 0. On sourcing, $bpflab
# becomes $BPFLAB_BIN/bpflab when BPFLAB_BIN is set and $t_start the test's start
# (seconds); cli runs bpflab against the lab's coordinator (--plaintext when the lab has no keys).
# Cleanup stays lib.sh's: its EXIT trap takes the lab (and so the guests) down and
# removes $tmp, whether the test passes, fails or is interrupted.

bin=${BPFLAB_BIN:-$bin}
bpflab="$bin/bpflab"
t_start=$(date +%s)

cli() {
	if [ -n "${BPFLAB_KEY:-}" ]; then "$bpflab" "$@"; else "$bpflab" --plaintext "$@"; fi
}

# Skip when BPFLAB_SKIP_GUESTS=1 (nothing of the lab exists yet: the EXIT trap is
# dropped, the lab left alone) or when the guest packages cannot be installed.
guests_require() {
	if [ "${BPFLAB_SKIP_GUESTS:-0}" = 1 ]; then
		trap - EXIT
		skip_test "BPFLAB_SKIP_GUESTS=1"
	fi
	sh "$top/scripts/deps.sh" guests >/dev/null 2>&1 ||
		skip_test "cannot install the guest packages (sh scripts/deps.sh guests)"
}

# [-q] [-t SECONDS] WHAT KERNEL...: fetch KERNEL... into the kernel cache (lab/kernels),
# or skip with "cannot fetch WHAT". -q hides lab/kernels' output, -t gives it SECONDS.
guests_fetch_kernels() {
	local quiet=0 limit=()

	while [ $# -gt 0 ]; do
		case "$1" in
		-q) quiet=1; shift ;;
		-t) limit=(timeout "$2"); shift 2 ;;
		*) break ;;
		esac
	done
	local what=$1; shift
	if [ "$quiet" = 1 ]; then
		"${limit[@]}" "$top/lab/kernels" fetch "$@" >/dev/null || skip_test "cannot fetch $what"
	else
		"${limit[@]}" "$top/lab/kernels" fetch "$@" || skip_test "cannot fetch $what"
	fi
}

# $tmp: a new directory that the EXIT trap removes.
guests_make_tmp() {
	tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
	cleanup_later "$tmp"
}

# KERNELS [VAR=VALUE...]: bring the lab up with no namespace host and one guest per
# kernel of the comma-separated KERNELS (g1, g2, ...), with VAR=VALUE... in the
# environment of 'lab up' (BPFLAB_GUEST_TIMEOUT, BPFLAB_KERNEL_CACHE, ...), then take
# BPFLAB_COORDINATOR and the keys from its env. The seconds 'lab up' took are left in
# $guests_boot_s.
guests_lab_up() {
	local kernels=$1 t0 ns

	shift
	lab_stop
	t0=$(date +%s%N)
	env "$@" "$top/lab/lab" up 0 --kernels "$kernels" --name "$LAB_NAME" --subnet "$LAB_SUBNET"
	ns=$(($(date +%s%N) - t0))
	guests_boot_s=$(printf '%d.%09d' $((ns / 1000000000)) $((ns % 1000000000)))
	# shellcheck source=/dev/null
	. "$BPFLAB_LAB_DIR/env"
	export BPFLAB_COORDINATOR BPFLAB_KEY BPFLAB_SERVER_KEY
}

no_guest_processes() { ! pgrep -f "[q]emu-system.*bpflab-lab-$LAB_NAME/|[v]irtiofsd.*bpflab-lab-$LAB_NAME/" >/dev/null; }

# The end of a test: the lab down, no QEMU or virtiofsd of it left, the whole time, and
# the exit status lib.sh's finish gives.
guests_finish() {
	lab_stop
	check "no QEMU or virtiofsd of the lab is left" no_guest_processes
	echo "whole test: $(($(date +%s) - t_start)) s"
	finish
}
