#!/bin/bash
# kexec-provider.sh - a kernel provider for bpflab-agent (docs/agent.md, "Kernel
# provider"): lists the kernels this machine can boot and switches it to one with kexec.
# The agent runs it, without a shell, from its own configuration file:
#
#   kernel_provider:
#     command: [/path/to/lab/guest/kexec-provider.sh, --cache, /var/cache/bpflab/kernels]
#
#   kexec-provider.sh [--cache DIR | --boot DIR] list         one release a line
#   kexec-provider.sh [--cache DIR | --boot DIR] boot RELEASE  kexec into RELEASE
#
# --cache DIR  the lab's kernel cache (lab/kernels: DIR/REL/root/boot/vmlinuz-REL and
#              DIR/REL/initrd, the bpflab initramfs that mounts the host's / in a QEMU
#              guest): what the lab in a box's guests use.
# --boot DIR   installed kernels (default /boot: vmlinuz-REL with initrd.img-REL): a real
#              lab host.
#
# `boot` loads the kernel with `kexec -l` (its initrd, the running kernel's command line
# with --reuse-cmdline) and executes it: `systemctl kexec` where systemd is PID 1 (a clean
# shutdown first), `kexec -e` otherwise (a QEMU guest, whose PID 1 is the agent: nothing
# to shut down, / is read-only). Exit 0 means the switch is under way (with kexec -e it
# never returns); non-zero with the reason on stderr means nothing changed.
# Environment: BPFLAB_KEXEC (the kexec binary, default kexec on PATH),
# BPFLAB_KEXEC_DRY=1 (check and load nothing: for tests).
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
set -u

die() { echo "kexec-provider: $*" >&2; exit 1; }

mode=boot
dir=/boot
case "${1:-}" in
--cache) mode=cache; dir=${2:-}; shift 2 || die "--cache needs a directory" ;;
--boot) mode=boot; dir=${2:-}; shift 2 || die "--boot needs a directory" ;;
esac
[ -d "$dir" ] || die "'$dir' is not a directory"

# The kernel image and initrd of release REL, or nothing.
files() { # REL
	local r=$1
	if [ "$mode" = cache ]; then
		echo "$dir/$r/root/boot/vmlinuz-$r" "$dir/$r/initrd"
	else
		echo "$dir/vmlinuz-$r" "$dir/initrd.img-$r"
	fi
}

list() {
	local p r k i
	if [ "$mode" = cache ]; then
		for p in "$dir"/*/; do
			r=$(basename "$p")
			read -r k i <<< "$(files "$r")"
			[ -f "$k" ] && [ -f "$i" ] && echo "$r"
		done
	else
		for p in "$dir"/vmlinuz-*; do
			r=${p##*/vmlinuz-}
			read -r k i <<< "$(files "$r")"
			[ -f "$k" ] && [ -f "$i" ] && echo "$r"
		done
	fi
	return 0
}

boot() { # REL
	local r=$1 k i kexec=${BPFLAB_KEXEC:-kexec} out t0
	[[ "$r" =~ ^[A-Za-z0-9][A-Za-z0-9._+~-]*$ ]] || die "'$r' is not a kernel release"
	read -r k i <<< "$(files "$r")"
	[ -f "$k" ] || die "no kernel image '$k' for '$r'"
	[ -f "$i" ] || die "no initrd '$i' for '$r'"
	command -v "$kexec" >/dev/null || die "'$kexec' is missing (Debian package kexec-tools)"
	if [ "${BPFLAB_KEXEC_DRY:-}" = 1 ]; then
		echo "kexec-provider: would load '$k' with '$i' and the current command line" >&2
		return 0
	fi
	t0=$(date +%s%N)
	out=$("$kexec" -l "$k" --initrd="$i" --reuse-cmdline 2>&1) ||
		die "kexec -l '$k' failed: $(echo "$out" | tr '\n' ' ')"
	echo "kexec-provider: loaded '$k' in $((($(date +%s%N) - t0) / 1000000)) ms; switching to '$r'" >&2
	if [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ]; then
		systemctl kexec || { "$kexec" -u; die "systemctl kexec failed"; }
		return 0
	fi
	sync
	"$kexec" -e
	"$kexec" -u
	die "kexec -e returned: the switch to '$r' did not happen"
}

case "${1:-}" in
list) [ $# -eq 1 ] || die "usage: list"; list ;;
boot) [ $# -eq 2 ] || die "usage: boot RELEASE"; boot "$2" ;;
*) die "usage: kexec-provider.sh [--cache DIR | --boot DIR] list | boot RELEASE" ;;
esac
