#!/bin/bash
# test_lab_nics_input.sh - `lab/lab up --kernels K --nics MODEL` refuses bad input before
# it starts anything (docs/kernels.md, "NIC models"); no guest boots, a few seconds: a
# model QEMU does not have (the NICs it has named), one QEMU has but no Linux driver is
# known for, a model a kernel does not drive (the kernels that do named), the same for
# a cloud kernel whose generic sibling lacks it too, --nics without --kernels, too many
# guests. Each must exit 2 with its message and leave no lab directory, bridge,
# namespace, QEMU or virtiofsd behind. The kernels are stand-ins in a kernel cache of the
# test's own: a lib/modules tree with modules.builtin (as `lab/kernels build` leaves it)
# and depmod's indexes, so modprobe answers for them and nothing is downloaded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guests.sh"

guests_require
guests_make_tmp
export BPFLAB_KERNEL_CACHE="$tmp/cache"

# fake_kernel REL DRIVER...: a cached kernel REL with DRIVER... built in
fake_kernel() {
	local rel=$1 d m
	shift
	d=$BPFLAB_KERNEL_CACHE/$rel
	mkdir -p "$d/root/lib/modules/$rel" "$d/root/boot"
	for m in "$@"; do echo "kernel/drivers/net/$m.ko"; done > "$d/root/lib/modules/$rel/modules.builtin"
	depmod -b "$d/root" "$rel" 2>/dev/null	# no modules.order: warnings
	: > "$d/initrd"; : > "$d/vmlinux"
	echo virtiofs > "$d/fs"; echo "fake-$rel" > "$d/package"; echo 0 > "$d/deb_bytes"
}
# a tree-built kernel (no sibling): virtio_net, e1000, e1000e, no vmxnet3; a cloud kernel
# (virtio_net, vmxnet3) and its generic sibling, which lacks e1000e too
fake_kernel 6.99.0-bpflab-test veth virtio_net e1000 e1000e
fake_kernel 6.99.0-1-cloud-amd64 veth virtio_net vmxnet3
fake_kernel 6.99.0-1-amd64 veth virtio_net vmxnet3 e1000
ls "$BPFLAB_KERNEL_CACHE" > "$tmp/cache.before"

nothing_left() {
	[ ! -e "$BPFLAB_LAB_DIR" ] && ! ip link show "bpfl-$LAB_NAME" >/dev/null 2>&1 &&
		! ip netns list | grep -q "^bpflab-$LAB_NAME-" && no_lab_processes && no_guest_processes
}

# expect PATTERN DESCRIPTION -- ARGS...: lab/lab up ARGS exits 2, a line of its stderr
# has PATTERN (is PATTERN when that starts with "lab: "), nothing of the lab exists
# afterwards
expect() {
	local pat=$1 what=$2 rc=0 whole=
	shift 3
	[[ "$pat" != "lab: "* ]] || whole=-x
	"$top/lab/lab" up "$@" --name "$LAB_NAME" --subnet "$LAB_SUBNET" > "$tmp/out" 2> "$tmp/err" || rc=$?
	if [ "$rc" != 2 ] || ! grep -qF $whole -- "$pat" "$tmp/err"; then
		fail "$what: exit $rc (want 2), stderr: $(cat "$tmp/err")"
		return
	fi
	if ! nothing_left; then
		fail "$what: something of lab $LAB_NAME was left ($(ls "$BPFLAB_LAB_DIR" 2>&1))"
		lab_stop
		return
	fi
	ok "$what: exit 2, '$(grep -F -- "$pat" "$tmp/err" | head -n 1)'"
}

expect "NIC model 'rtl9000' is not a NIC of QEMU" "a model QEMU does not have" -- \
	0 --kernels 6.99.0-bpflab-test --nics e1000e,rtl9000
check "the refusal names the NICs QEMU has" grep -q "it has: .*e1000e.*vmxnet3" "$tmp/err"
expect "NIC model 'rocker' has no Linux driver lab/lab knows" "a model QEMU has, no driver known" -- \
	1 --kernels 6.99.0-bpflab-test --nics rocker
expect "lab: NIC model 'vmxnet3' has no driver in kernel 6.99.0-bpflab-test (vmxnet3); kernels that have it: none of those given" \
	"a model no kernel drives (with a namespace host asked for too)" -- \
	1 --kernels 6.99.0-bpflab-test --nics virtio,vmxnet3
expect "lab: NIC model 'e1000e' has no driver in kernel 6.99.0-1-cloud-amd64 (e1000e) nor in its generic sibling 6.99.0-1-amd64; kernels that have it: 6.99.0-bpflab-test" \
	"a model a cloud kernel and its generic sibling lack, another kernel has" -- \
	0 --kernels 6.99.0-1-cloud-amd64,6.99.0-bpflab-test --nics e1000e
expect "lab: NIC model 'vmxnet3' has no driver in kernel 6.99.0-bpflab-test (vmxnet3); kernels that have it: 6.99.0-1-cloud-amd64" \
	"the second kernel lacks a model the first has" -- \
	0 --kernels 6.99.0-1-cloud-amd64,6.99.0-bpflab-test --nics virtio-net-pci,vmxnet3
expect "lab: NIC model 'virtio-net-pci' is given twice in --nics" "a model twice (virtio is virtio-net-pci)" -- \
	0 --kernels 6.99.0-bpflab-test --nics virtio,e1000,virtio-net-pci
expect "lab: --nics goes with --kernels" "--nics without --kernels" -- 2 --nics e1000e
expect "make 18 guests; at most 16" "more than 16 (kernel, model) guests" -- \
	0 --kernels k1,k2,k3,k4,k5,k6 --nics virtio,e1000,e1000e
check "nothing was fetched into the kernel cache" diff "$tmp/cache.before" <(ls "$BPFLAB_KERNEL_CACHE")
guests_finish
