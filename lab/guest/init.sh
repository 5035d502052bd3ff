#!/bin/bash
# init.sh - PID 1 of a bpflab QEMU guest (docs/kernels.md), started by the initramfs that
# lab/kernels builds, after it has mounted the host's / read-only as the guest's root.
#
# Reads the guest's config file (bpflab.conf=PATH on the kernel command line, written by
# lab/lab into the lab's state directory): BPFLAB_NAME, BPFLAB_COORDINATOR,
# BPFLAB_BIN, BPFLAB_KROOT (the guest kernel's unpacked package), BPFLAB_TIMING,
# BPFLAB_AGENT_CONFIG (the agent's --config: its kernel provider, kexec-provider.sh) and
# BPFLAB_AGENT_ARGS (extra agent arguments, e.g. CURVE key files), and for a guest with
# NIC ports (lab/lab up --nics) BPFLAB_NICS (the QEMU model), BPFLAB_NIC_DRIVER and
# BPFLAB_NIC_MACS (the MACs of ports a, b, c, d). After a kexec into
# another kernel of the cache (the same command line, so the same config) BPFLAB_KROOT
# names the kernel the guest booted first: the running kernel's tree is its sibling
# CACHE/$(uname -r)/root. Then mounts proc, sys,
# bpffs and tmpfs over the directories that must be writable, loads veth (and sch_ingress
# and cls_bpf, for the clsact fallback of tc hooks) from the guest kernel's own modules,
# makes the veth pairs port-a/port-b and port-c/port-d (with NIC ports: loads the NIC
# driver, names the four NICs port-a..port-d by their MACs and makes the veth pair
# port-e/port-f), sets up the QEMU user network
# (eth0 10.0.2.15/24, the host's loopback is 10.0.2.2) and execs bpflab-agent, logging
# to the serial console. When the agent exits, the kernel panics and QEMU (-no-reboot)
# exits with it.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

say() { echo "bpflab-guest: $*" > /dev/console 2>/dev/null || echo "bpflab-guest: $*"; }
halt() { say "$*"; echo o > /proc/sysrq-trigger; sleep 5; exit 1; }

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1

conf=
for a in $(cat /proc/cmdline); do
	case "$a" in bpflab.conf=*) conf=${a#bpflab.conf=} ;; esac
done
[ -n "$conf" ] && [ -r "$conf" ] || halt "no readable config file 'bpflab.conf=$conf' on the command line"
BPFLAB_AGENT_ARGS=()
# shellcheck disable=SC1090
. "$conf"
[ -n "${BPFLAB_NAME:-}" ] && [ -n "${BPFLAB_COORDINATOR:-}" ] && [ -n "${BPFLAB_BIN:-}" ] ||
	halt "'$conf' lacks BPFLAB_NAME, BPFLAB_COORDINATOR or BPFLAB_BIN"
mkdir -p /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /dev/shm

mount -t bpf bpf /sys/fs/bpf || halt "cannot mount bpffs"
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# /tmp stays the host's (read-only): the lab's state directory, key files and a
# BPFLAB_BIN there must stay visible; scratch space is /run, with TMPDIR pointing there
for d in /run /var/tmp; do
	mount -t tmpfs -o mode=1777,size=32m tmpfs "$d" 2>/dev/null || true
done
mkdir -p -m 1777 /run/tmp
export TMPDIR=/run/tmp
hostname "$BPFLAB_NAME"
rel=$(uname -r)
# kexec'd into another kernel of the cache: its own unpacked tree, beside the first one's
case "${BPFLAB_KROOT:-}" in
*/root) [ -d "$BPFLAB_KROOT/lib/modules/$rel" ] ||
	BPFLAB_KROOT=$(dirname "$(dirname "$BPFLAB_KROOT")")/$rel/root ;;
esac
# the agent reads the kernel config from /boot/config-RELEASE: the guest kernel's own
mount -t tmpfs -o size=4m tmpfs /boot 2>/dev/null &&
	cp "${BPFLAB_KROOT:-}/boot/config-$(uname -r)" /boot/ 2>/dev/null
mkdir -p /run/bpflab/spool

if ! modprobe -d "${BPFLAB_KROOT:-/}" -S "$rel" veth 2>/dev/null; then
	halt "cannot load veth from '${BPFLAB_KROOT:-/}/lib/modules/$rel'"
fi
# tc hooks on kernels without tcx (6.1) go to a clsact qdisc and a cls_bpf filter
# (agent/attach.h); the kernel cannot autoload these from the host's /lib/modules
for m in sch_ingress cls_bpf; do
	modprobe -d "${BPFLAB_KROOT:-/}" -S "$rel" "$m" 2>/dev/null ||
		say "cannot load $m: tc plans need tcx (Linux 6.6+) on this guest"
done
ip link set lo up
# no IPv6 on the ports (as lab/lab): its autoconfiguration sends frames a port counts as rx
for f in /proc/sys/net/ipv6/conf/all/disable_ipv6 /proc/sys/net/ipv6/conf/default/disable_ipv6; do
	[ ! -e "$f" ] || echo 1 > "$f"
done
ports=(a b c d)
if [ -z "${BPFLAB_NICS:-}" ]; then
	# the same ports as a namespace host of lab/lab: two veth pairs, the same addresses,
	# GRO on port-b and port-d (a veth with GRO runs NAPI and takes xdp-live frames)
	ip link add port-a type veth peer name port-b || halt "cannot create the port-a/port-b veth pair"
	ip link add port-c type veth peer name port-d || halt "cannot create the port-c/port-d veth pair"
else
	# NICs of model BPFLAB_NICS for a..d (a<->b and c<->d on QEMU hubs), found by their
	# MACs; the driver from the guest kernel's tree (nothing to load when built in)
	modprobe -d "${BPFLAB_KROOT:-/}" -S "$rel" "$BPFLAB_NIC_DRIVER" ||
		halt "cannot load $BPFLAB_NIC_DRIVER for NIC model '$BPFLAB_NICS' from '${BPFLAB_KROOT:-/}/lib/modules/$rel'"
	for i in 0 1 2 3; do
		mac=${BPFLAB_NIC_MACS[$i]}
		# the driver probes its devices while modprobe runs; give late ones 5 s
		for _ in $(seq 50); do
			ifc=$(grep -lix "$mac" /sys/class/net/*/address 2>/dev/null | head -n 1 | cut -d/ -f5)
			[ -n "$ifc" ] && break
			sleep 0.1
		done
		[ -n "$ifc" ] || halt "no interface with MAC $mac ($BPFLAB_NICS, $BPFLAB_NIC_DRIVER) for port-${ports[$i]}"
		ip link set dev "$ifc" name "port-${ports[$i]}" || halt "cannot rename '$ifc' to 'port-${ports[$i]}'"
	done
	# the management NIC is the first virtio_net one; with virtio ports it might not be
	# eth0 any more: the one with QEMU's first default MAC
	if ! [ -e /sys/class/net/eth0 ]; then
		ifc=$(grep -lix 52:54:00:12:34:56 /sys/class/net/*/address 2>/dev/null | head -n 1 | cut -d/ -f5)
		[ -z "$ifc" ] || ip link set dev "$ifc" name eth0
	fi
	# and a veth pair for redirects from a driver into veth
	ip link add port-e type veth peer name port-f || halt "cannot create the port-e/port-f veth pair"
	ip addr add 198.19.3.1/24 dev port-e
	ip addr add 198.19.3.2/24 dev port-f
	ports+=(e f)
fi
ip addr add 198.19.1.1/24 dev port-a
ip addr add 198.19.1.2/24 dev port-b
ip addr add 198.19.2.1/24 dev port-c
ip addr add 198.19.2.2/24 dev port-d
for p in port-b port-d ${BPFLAB_NICS:+port-f}; do
	ethtool -K "$p" gro on >/dev/null 2>&1 || say "cannot turn GRO on on '$p'"
done
port_args=()
for p in "${ports[@]}"; do
	ip link set "port-$p" up
	port_args+=(--port "$p=port-$p")
done
# a NIC reports its speed (and takes frames) once its link is up: e1000e negotiates for a
# moment; wait for it (5 s at most), so that the agent's first inventory has the speeds
if [ -n "${BPFLAB_NICS:-}" ]; then
	for p in a b c d; do
		for _ in $(seq 50); do
			[ "$(cat "/sys/class/net/port-$p/carrier" 2>/dev/null)" = 1 ] && break
			sleep 0.1
		done
		[ "$(cat "/sys/class/net/port-$p/carrier" 2>/dev/null)" = 1 ] || say "port-$p ($BPFLAB_NICS) has no link after 5 s"
	done
fi
ip link set eth0 up || halt "no eth0 (virtio_net)"
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2

[ -n "${BPFLAB_AGENT_CONFIG:-}" ] && BPFLAB_AGENT_ARGS+=(--config "$BPFLAB_AGENT_CONFIG")
say "kernel $rel, timing ${BPFLAB_TIMING:-wall}, agent '$BPFLAB_NAME' -> $BPFLAB_COORDINATOR${BPFLAB_NICS:+, ports a-d $BPFLAB_NICS ($BPFLAB_NIC_DRIVER)}"
exec "$BPFLAB_BIN/bpflab-agent" --coordinator "$BPFLAB_COORDINATOR" --name "$BPFLAB_NAME" \
	"${port_args[@]}" --spool /run/bpflab/spool \
	--timing "${BPFLAB_TIMING:-wall}" "${BPFLAB_AGENT_ARGS[@]}"
