# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# guests.sh - QEMU guests of the lab in a box, one per Debian kernel (docs/kernels.md).
# Sourced by lab/lab, which defines name, dir, bin, top, agents_ep, clients_ep, die,
# stop_pidfile; `lab/lab up N --kernels K1,K2,...` calls guests_up after the namespace
# hosts, `lab/lab guest-up KERNEL` calls guest_up, `lab/lab down` calls guests_down.
#
# Guest gI boots kernel KI (lab/kernels prepares it, cached) under TCG with
# -icount shift=0 (one guest nanosecond is one guest instruction), 256 MB, the host's /
# shared read-only over virtiofs (one virtiofsd per guest) or 9p, and QEMU user
# networking. Its agent connects to the lab's agent endpoint through QEMU's user network:
# a coordinator on 127.0.0.1:PORT is reached as 10.0.2.2:PORT, one on the lab's bridge
# (198.18.K.1) directly, QEMU making the connection from the host. Nothing is forwarded
# into a guest. Per guest, in $dir/gI/: agent.conf (read by lab/guest/init.sh),
# agent.yaml (with BPFLAB_GUEST_KEXEC=1: the agent's --config, its kernel_provider),
# console (the serial console: kernel and agent messages), qemu.pid, virtiofsd.pid,
# virtiofsd.log, kernel (the release it runs), used (when it was last booted or handed
# out by guest-up, for --max), nic (with --nics: the QEMU model of ports a-d).
#
# With `--nics MODEL,...` (guests_plan, before anything is started) the guests are the
# cross product of kernels and QEMU NIC models, kernel-major: each has four NICs of its
# model besides the management one, ports a<->b on QEMU hub 1 and c<->d on hub 2
# (-netdev hubport: frames never leave the QEMU process), MAC 52:54:00:b1:GG:0P (GG the
# guest's index in hex, P a-d), and a veth pair e<->f made by init.sh; gI/nic holds the
# model, agent.conf BPFLAB_NICS, BPFLAB_NIC_DRIVER and BPFLAB_NIC_MACS. A cloud kernel
# without the model's driver (e1000, e1000e) is replaced by its generic sibling
# (REL-cloud-amd64 -> REL-amd64, fetched); a model QEMU lacks, or one no kernel drives,
# is refused with exit 2.
#
# Environment: BPFLAB_GUEST_TIMING icount (default) or wall; BPFLAB_GUEST_ICOUNT the
# -icount option (default shift=0,sleep=on: see docs/kernels.md for why not sleep=off); BPFLAB_GUEST_ACCEL tcg
# (default) or kvm; BPFLAB_GUEST_MEM 256 (MiB); BPFLAB_GUEST_TIMEOUT 120 (seconds for
# all guests to register; with --nics 40 a guest, at least 120); BPFLAB_GUEST_KEXEC 1:
# each guest's agent gets a kernel provider (lab/guest/kexec-provider.sh over the kernel
# cache), so `bpflab host boot gI KERNEL` switches the guest by kexec (docs/kernels.md);
# off by default, so that a bisection over guests keeps booting new guests through
# `lab/lab guest-up`.

guest_timing=${BPFLAB_GUEST_TIMING:-icount}
guest_accel=${BPFLAB_GUEST_ACCEL:-tcg}
guest_mem=${BPFLAB_GUEST_MEM:-256}
guest_timeout=${BPFLAB_GUEST_TIMEOUT:-120}
guest_kexec=${BPFLAB_GUEST_KEXEC:-0}

# The agent endpoint as seen from inside a guest.
guest_endpoint() {
	case "$agents_ep" in
	tcp://127.*:*|tcp://localhost:*) echo "tcp://10.0.2.2:${agents_ep##*:}" ;;
	*) echo "$agents_ep" ;;
	esac
}

# Agent arguments for guest NAME: CURVE with a key of its own (allowed by guests_up) when
# lab/lab has keys (lab_allow, lab_key_args; the key files in $dir/keys are read through
# the shared read-only root), plaintext otherwise.
guest_auth_args() { # NAME
	if declare -F lab_key_args >/dev/null; then lab_key_args "$1"; else echo --plaintext; fi
}

# NIC models (--nics). The Linux driver of QEMU NIC model MODEL (a name or alias that
# `qemu-system-x86_64 -device help` lists under "Network devices", or `virtio`), or
# nothing for a model lab/lab has no driver for.
guest_nic_driver() { # MODEL
	case "$1" in
	virtio|virtio-net|virtio-net-pci|virtio-net-pci-transitional|virtio-net-pci-non-transitional) echo virtio_net ;;
	vmxnet3) echo vmxnet3 ;;
	e1000e) echo e1000e ;;
	e1000|e1000-82540em|e1000-82544gc|e1000-82545em) echo e1000 ;;
	i8255[0-9]*|i8256[0-9]*|i82801) echo e100 ;;
	rtl8139) echo 8139too ;;
	pcnet) echo pcnet32 ;;
	ne2k_pci) echo ne2k_pci ;;
	tulip) echo tulip ;;
	esac
}

# The -device name of MODEL: QEMU's aliases and `virtio` as their device.
guest_nic_model() { # MODEL
	case "$1" in
	virtio|virtio-net) echo virtio-net-pci ;;
	e1000-82540em) echo e1000 ;;
	*) echo "$1" ;;
	esac
}

# The PCI NICs this QEMU has ("Network devices" of -device help, bus PCI), with their
# aliases, one a line.
guest_qemu_nics() {
	qemu-system-x86_64 -device help 2>/dev/null | awk '
		/^Network devices:/ { f = 1; next }
		/^$/ { f = 0 }
		f && /bus PCI/ {
			if (match($0, /name "[^"]*"/)) print substr($0, RSTART + 6, RLENGTH - 7)
			if (match($0, /alias "[^"]*"/)) print substr($0, RSTART + 7, RLENGTH - 8)
		}'
}

# Whether the kernel in cache directory KDIR has DRIVER, as a module or built in
# (modules.builtin): modprobe's dependency list from the kernel's own tree.
guest_kernel_has() { # KDIR DRIVER
	modprobe -d "$1/root" -S "$(basename "$1")" --show-depends "$2" >/dev/null 2>&1
}

# Refuses (exit 2) NIC model MODEL unless QEMU has it (naming the PCI NICs it has) and
# lab/lab knows its driver; prints its -device name.
guest_nic_check() { # MODEL
	local model qnics
	model=$(guest_nic_model "$1")
	qnics=$(guest_qemu_nics)
	[ -n "$qnics" ] || die "cannot list the NICs of qemu-system-x86_64 (-device help)"
	grep -qxF -- "$model" <<< "$qnics" ||
		refuse "NIC model '$1' is not a NIC of $(qemu-system-x86_64 --version | head -n 1); it has: $(tr '\n' ' ' <<< "$qnics" | sed 's/ $//; s/ /, /g')"
	[ -n "$(guest_nic_driver "$model")" ] ||
		refuse "NIC model '$1' has no Linux driver lab/lab knows; use one of: virtio-net-pci, vmxnet3, e1000e, e1000, rtl8139, pcnet, i82559er, ne2k_pci, tulip"
	echo "$model"
}

# The cache directory of the kernel that boots with DRIVER for kernel KDIR: KDIR if it has
# DRIVER, else (a cloud kernel) its generic sibling REL-amd64, fetched, if that has it;
# returns 1 otherwise. Says on stderr when it takes the sibling or cannot fetch it.
guest_nic_kernel() { # KDIR DRIVER
	local rel sib sdir
	guest_kernel_has "$1" "$2" && { echo "$1"; return 0; }
	rel=$(basename "$1")
	[[ "$rel" == *-cloud-amd64 ]] || return 1
	sib=${rel%-cloud-amd64}-amd64
	if ! sdir=$("$top/lab/kernels" dir "$sib"); then
		echo "lab: cannot fetch $sib, the generic sibling of $rel" >&2
		return 1
	fi
	guest_kernel_has "$sdir" "$2" || return 1
	echo "lab: kernel $rel has no $2; its generic sibling $sib boots instead" >&2
	echo "$sdir"
}

# The guests of `lab/lab up --kernels KERNELS --nics NICS`, checked before anything of
# the lab is started: guest_kernels[I-1] and guest_nics[I-1] for guest gI, the cross
# product kernel-major, each kernel fetched (a cloud kernel without a model's driver
# replaced by its generic sibling, fetched too). Bad input exits 2 (refuse): a model
# QEMU lacks (the PCI NICs it has named), one without a driver known to lab/lab, one a
# kernel (and its sibling) does not drive (the kernels that do named).
guest_kernels=()
guest_nics=()
guests_plan() { # KERNELS NICS (comma separated)
	local klist=() mlist=() models=() m model drv k kdir rel use have
	local -A kdirs=()
	command -v qemu-system-x86_64 >/dev/null ||
		die "qemu-system-x86_64 is missing; install the guest packages: sh scripts/deps.sh guests"
	IFS=, read -r -a klist <<< "$1"
	IFS=, read -r -a mlist <<< "$2"
	[ ${#klist[@]} -ge 1 ] || refuse "--nics goes with --kernels"
	[ ${#mlist[@]} -ge 1 ] || refuse "--nics needs at least one NIC model"
	[ $((${#klist[@]} * ${#mlist[@]})) -le 16 ] ||
		refuse "--kernels and --nics make $((${#klist[@]} * ${#mlist[@]})) guests; at most 16"
	for m in "${mlist[@]}"; do
		model=$(guest_nic_check "$m") || exit $?
		[[ " ${models[*]} " != *" $model "* ]] || refuse "NIC model '$m' is given twice in --nics"
		models+=("$model")
	done
	# every kernel into the cache first (release or package name -> release)
	"$top/lab/kernels" fetch "${klist[@]}" >&2 || die "cannot fetch kernels '$1'"
	for k in "${klist[@]}"; do
		kdirs[$k]=$("$top/lab/kernels" dir "$k") || die "cannot prepare kernel '$k' (see above)"
	done
	# guests with NICs boot a little longer and generic kernels (larger) longer still: with
	# no BPFLAB_GUEST_TIMEOUT, 40 s a guest (4 at once: 124 s measured on 2 busy cores)
	[ -n "${BPFLAB_GUEST_TIMEOUT:-}" ] ||
		guest_timeout=$((${#klist[@]} * ${#models[@]} * 40 > 120 ? ${#klist[@]} * ${#models[@]} * 40 : 120))
	for k in "${klist[@]}"; do
		kdir=${kdirs[$k]}
		rel=$(basename "$kdir")
		for model in "${models[@]}"; do
			drv=$(guest_nic_driver "$model")
			if use=$(guest_nic_kernel "$kdir" "$drv"); then
				guest_kernels+=("$(basename "$use")"); guest_nics+=("$model"); continue
			fi
			have=
			for m in "${klist[@]}"; do
				guest_kernel_has "${kdirs[$m]}" "$drv" && have="$have, $(basename "${kdirs[$m]}")"
			done
			have=${have#, }
			refuse "NIC model '$model' has no driver in kernel $rel ($drv)$([[ "$rel" == *-cloud-amd64 ]] && echo " nor in its generic sibling ${rel%-cloud-amd64}-amd64"); kernels that have it: ${have:-none of those given}"
		done
	done
}

guest_start() { # I KERNEL [NIC]
	local i=$1 k=$2 nic=${3:-} kdir rel g=$dir/g$1 kernel accel icount fsdev vfs_ep append
	local nicdev=() macs=() p
	kdir=$("$top/lab/kernels" dir "$k") || die "cannot prepare kernel '$k' (see above)"
	rel=$(basename "$kdir")
	mkdir -p "$g"
	echo "$rel" > "$g/kernel"
	guest_touch "$i"
	rm -f "$g/nic"
	if [ -n "$nic" ]; then
		# ports a<->b on hub 1, c<->d on hub 2, MACs by which init.sh names them; no
		# option ROM (SeaBIOS would run an iPXE for each: boot time, no use with -kernel)
		echo "$nic" > "$g/nic"
		for p in a b c d; do
			macs+=("$(printf '52:54:00:b1:%02x:0%s' $((i % 256)) "$p")")
			nicdev+=(-netdev "hubport,id=p$p,hubid=$(case $p in a|b) echo 1 ;; *) echo 2 ;; esac)"
				-device "$nic,netdev=p$p,mac=${macs[-1]},romfile=")
		done
	fi
	{
		echo "# written by lab/lab for guest g$i; read by lab/guest/init.sh"
		echo "BPFLAB_NAME=g$i"
		echo "BPFLAB_COORDINATOR=$(guest_endpoint)"
		echo "BPFLAB_BIN=$bin"
		echo "BPFLAB_KROOT=$kdir/root"
		echo "BPFLAB_TIMING=$guest_timing"
		echo "BPFLAB_AGENT_ARGS=($(guest_auth_args "g$i"))"
		if [ "$guest_kexec" = 1 ]; then echo "BPFLAB_AGENT_CONFIG=$g/agent.yaml"; fi
		if [ -n "$nic" ]; then
			echo "BPFLAB_NICS=$nic"
			echo "BPFLAB_NIC_DRIVER=$(guest_nic_driver "$nic")"
			echo "BPFLAB_NIC_MACS=(${macs[*]})"
		fi
	} > "$g/agent.conf"
	# BPFLAB_GUEST_KEXEC=1: the agent's own config names a kernel provider that kexecs
	# into the cached kernels (the guest is then a lab host that switches its kernel)
	rm -f "$g/agent.yaml"
	if [ "$guest_kexec" = 1 ]; then
		{
			echo "# written by lab/lab for guest g$i: bpflab-agent --config (docs/agent.md)"
			echo "kernel_provider:"
			echo "  command: [$top/lab/guest/kexec-provider.sh, --cache, $(dirname "$kdir")]"
		} > "$g/agent.yaml"
	fi
	kernel=$kdir/vmlinux
	[ -f "$kernel" ] || kernel=$kdir/root/boot/vmlinuz-$rel
	if [ "$guest_accel" = kvm ]; then accel=(-accel kvm -cpu host); else accel=(-accel tcg -cpu max); fi
	icount=()
	[ "$guest_timing" = icount ] && icount=(-icount "${BPFLAB_GUEST_ICOUNT:-shift=0,sleep=on}")
	if [ "$(cat "$kdir/fs")" = virtiofs ]; then
		rm -f "$g/vfs.sock"
		setsid /usr/lib/qemu/virtiofsd --socket-path="$g/vfs.sock" -o source=/ \
			-o cache=always -o sandbox=chroot </dev/null >"$g/virtiofsd.log" 2>&1 &
		echo $! > "$g/virtiofsd.pid"
		for ((vfs_ep = 0; vfs_ep < 50; vfs_ep++)); do [ -S "$g/vfs.sock" ] && break; sleep 0.1; done
		[ -S "$g/vfs.sock" ] || die "virtiofsd of guest g$i did not start (see $g/virtiofsd.log)"
		fsdev=(-object "memory-backend-memfd,id=mem,size=${guest_mem}M,share=on" -numa node,memdev=mem
			-chardev "socket,id=vfs,path=$g/vfs.sock" -device vhost-user-fs-pci,chardev=vfs,tag=root)
	else
		fsdev=(-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on)
	fi
	append="console=ttyS0 quiet panic=-1 bpflab.init=$top/lab/guest/init.sh bpflab.conf=$g/agent.conf"
	setsid qemu-system-x86_64 "${accel[@]}" "${icount[@]}" -m "$guest_mem" -smp 1 \
		-nographic -nodefaults -no-reboot -serial "file:$g/console" \
		-kernel "$kernel" -initrd "$kdir/initrd" -append "$append" "${fsdev[@]}" \
		-netdev user,id=n0 -device virtio-net-pci,netdev=n0 "${nicdev[@]}" \
		-pidfile "$g/qemu.pid" </dev/null >"$g/qemu.out" 2>&1 &
	echo $! > "$g/qemu.pid.launch"
}

# The CLI, with the lab's client key when lab/lab has keys.
guest_cli() {
	if declare -F lab_key_args >/dev/null; then
		# shellcheck disable=SC2046
		"$bin/bpflab" -c "$clients_ep" $(lab_key_args client) "$@"
	else
		"$bin/bpflab" --plaintext -c "$clients_ep" "$@"
	fi
}

# Boots the guests: one per kernel of KERNELS, or with --nics those guests_plan chose
# (guest_kernels, guest_nics).
guests_up() { # KERNELS (comma separated)
	local kernels=$1 list i k up t0 missing deadline
	command -v qemu-system-x86_64 >/dev/null ||
		die "qemu-system-x86_64 is missing; install the guest packages: sh scripts/deps.sh guests"
	if [ ${#guest_kernels[@]} -gt 0 ]; then
		list=("${guest_kernels[@]}")
	else
		IFS=, read -r -a list <<< "$kernels"
	fi
	[ ${#list[@]} -ge 1 ] && [ ${#list[@]} -le 16 ] || die "--kernels needs 1-16 kernels"
	# fetch everything first (cached after the first time), then boot them all at once
	"$top/lab/kernels" fetch "${list[@]}" >&2 || die "cannot fetch kernels '$kernels'"
	if declare -F lab_allow >/dev/null; then
		for ((i = 1; i <= ${#list[@]}; i++)); do lab_allow "g$i" agent; done
		# bpflabd reloads its allow list on SIGHUP
		[ -f "$dir/bpflabd.pid" ] && kill -HUP "$(cat "$dir/bpflabd.pid")" 2>/dev/null || true
	fi
	t0=$(date +%s)
	for ((i = 1; i <= ${#list[@]}; i++)); do
		guest_start "$i" "${list[$((i - 1))]}" "${guest_nics[$((i - 1))]:-}"
	done
	echo "${#list[@]}" > "$dir/guests_seq"	# guest_up's next name
	deadline=$((t0 + guest_timeout))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		up=$(guest_cli -j host list 2>/dev/null |
			python3 -c 'import json,sys
d = json.load(sys.stdin); d = d.get("hosts", d) if isinstance(d, dict) else d
print(" ".join(h["name"] for h in d if h.get("name","").startswith("g") and h.get("state") in ("idle","busy")))' 2>/dev/null || true)
		missing=
		for ((i = 1; i <= ${#list[@]}; i++)); do
			[[ " $up " == *" g$i "* ]] || missing="$missing g$i"
		done
		[ -z "$missing" ] && break
		for i in $missing; do
			[ -e "$dir/$i/qemu.pid.launch" ] && ! kill -0 "$(cat "$dir/$i/qemu.pid.launch")" 2>/dev/null &&
				{ deadline=0; break; }
		done
		sleep 0.2
	done
	if [ -n "$missing" ]; then
		for i in $missing; do
			echo "lab: guest $i ($(cat "$dir/$i/kernel")$([ -f "$dir/$i/nic" ] && echo ", nic $(cat "$dir/$i/nic")")) did not register within ${guest_timeout} s; console $dir/$i/console:" >&2
			tail -n 5 "$dir/$i/console" "$dir/$i/qemu.out" 2>/dev/null | sed 's/^/    /' >&2
		done
		lab_down
		die "guests$missing did not register (consoles in $dir/g*/console)"
	fi
	echo "lab $name: ${#list[@]} guests up in $(($(date +%s) - t0)) s:" \
		"$(for ((i = 1; i <= ${#list[@]}; i++)); do printf 'g%d=%s%s ' "$i" "$(cat "$dir/g$i/kernel")" \
			"$([ -f "$dir/g$i/nic" ] && echo "/$(cat "$dir/g$i/nic")")"; done)"
}

# `lab/lab guest-up KERNEL [--max N]`: the lab in a box's kernel provider (docs/bisect.md,
# "Kernel providers"). Prints the name of a running guest that boots KERNEL (a release or
# package name, as lab/kernels takes it), starting one more guest gI (the next free I)
# when none runs it and waiting until its agent has registered. With --max N (or
# BPFLAB_GUEST_MAX), the least recently used guests (booted or handed out longest ago,
# gI/used) are stopped until at most N run,
# the new one included, to save memory and CPU; a stopped guest's host goes 'gone'.
# A guest whose kernel is in BPFLAB_KEEP_KERNELS (space-separated releases, as gI/kernel
# has them: the kernels a bisection still needs) is never stopped; when only such guests
# are left, more than N run, and guest-up says so.
guest_up() { # KERNEL MAX [NIC]
	local k=$1 max=$2 nic=${3:-} g i rel kdir running=() t0 deadline up
	command -v qemu-system-x86_64 >/dev/null ||
		die "qemu-system-x86_64 is missing; install the guest packages: sh scripts/deps.sh guests"
	[ -f "$dir/bpflabd.pid" ] || die "lab '$name' is not up; 'lab/lab up' first"
	[ -z "$nic" ] || nic=$(guest_nic_check "$nic") || exit $?
	"$top/lab/kernels" fetch "$k" >&2 || die "cannot fetch kernel '$k'"
	kdir=$("$top/lab/kernels" dir "$k") || die "cannot prepare kernel '$k'"
	if [ -n "$nic" ]; then
		kdir=$(guest_nic_kernel "$kdir" "$(guest_nic_driver "$nic")") ||
			refuse "NIC model '$nic' has no driver in kernel $(basename "$kdir") ($(guest_nic_driver "$nic"))"
		k=$(basename "$kdir")
	fi
	rel=$(basename "$kdir")
	# the running guests, least recently used first: by the time in gI/used (written
	# when the guest is booted or handed out again), then by index
	for g in $(for g in "$dir"/g*/; do
			g=${g%/}; g=${g##*/g}
			[[ "$g" =~ ^[0-9]+$ ]] || continue
			echo "$(cat "$dir/g$g/used" 2>/dev/null || echo 0) $g"
		done | sort -n -k1,1 -k2,2 | cut -d' ' -f2); do
		[ -f "$dir/g$g/qemu.pid.launch" ] && kill -0 "$(cat "$dir/g$g/qemu.pid.launch")" 2>/dev/null &&
			running+=("$g")
	done
	for g in "${running[@]}"; do
		if [ "$(guest_kernel "$dir/g$g")" = "$rel" ] &&
			[ "$(cat "$dir/g$g/nic" 2>/dev/null)" = "$nic" ]; then
			guest_touch "$g"
			echo "g$g"
			return 0
		fi
	done
	if [[ "$max" =~ ^[1-9][0-9]*$ ]]; then
		# never a guest whose kernel the caller still needs (BPFLAB_KEEP_KERNELS, from
		# `bpflab bisect step`): the least recently used of the others goes first
		local n=${#running[@]} stoppable=()
		for g in "${running[@]}"; do
			[[ " ${BPFLAB_KEEP_KERNELS:-} " == *" $(guest_kernel "$dir/g$g") "* ]] || stoppable+=("$g")
		done
		while [ "$n" -ge "$max" ] && [ ${#stoppable[@]} -gt 0 ]; do
			guest_stop "${stoppable[0]}"
			echo "lab $name: stopped guest g${stoppable[0]} ($(guest_kernel "$dir/g${stoppable[0]}")), the least recently used, to keep at most $max" >&2
			stoppable=("${stoppable[@]:1}")
			n=$((n - 1))
		done
		if [ "$n" -ge "$max" ]; then
			echo "lab $name: $((n + 1)) guests will run, more than --max $max: the $n running ones run kernels the caller keeps (BPFLAB_KEEP_KERNELS: ${BPFLAB_KEEP_KERNELS:-})" >&2
		fi
	fi
	# a name never used in this lab before (DIR/guests_seq: the last one handed out), so
	# that a guest stopped by guest-down (its directory gone) and its host's last hello
	# are not taken for the new one
	i=$(cat "$dir/guests_seq" 2>/dev/null || echo 0)
	i=$((i + 1))
	while [ -d "$dir/g$i" ]; do i=$((i + 1)); done
	echo "$i" > "$dir/guests_seq"
	if declare -F lab_allow >/dev/null; then
		lab_allow "g$i" agent
		kill -HUP "$(cat "$dir/bpflabd.pid")" 2>/dev/null || true
	fi
	t0=$(date +%s)
	guest_start "$i" "$k" "$nic"
	deadline=$((t0 + guest_timeout))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		up=$(guest_cli -j host list 2>/dev/null | python3 -c 'import json,sys
d = json.load(sys.stdin); d = d.get("hosts", d) if isinstance(d, dict) else d
print(" ".join(h["name"] for h in d if h.get("state") in ("idle","busy")))' 2>/dev/null || true)
		[[ " $up " == *" g$i "* ]] && break
		kill -0 "$(cat "$dir/g$i/qemu.pid.launch")" 2>/dev/null || break
		sleep 0.2
	done
	if [[ " $up " != *" g$i "* ]]; then
		echo "lab: guest g$i ($rel) did not register within ${guest_timeout} s; console $dir/g$i/console:" >&2
		tail -n 5 "$dir/g$i/console" "$dir/g$i/qemu.out" 2>/dev/null | sed 's/^/    /' >&2
		guest_stop "$i"
		die "guest g$i did not register"
	fi
	echo "lab $name: guest g$i ($rel$([ -z "$nic" ] || echo ", nic $nic")) up in $(($(date +%s) - t0)) s" >&2
	echo "g$i"
}

# Marks guest I as used now (gI/used: nanoseconds since the epoch), for --max's least
# recently used order.
guest_touch() { # I
	date +%s%N > "$dir/g$1/used"
}

guest_stop() { # I
	local g=$dir/g$1
	[ -f "$g/qemu.pid.launch" ] && stop_pidfile "$g/qemu.pid.launch"
	rm -f "$g/qemu.pid"
	[ -f "$g/virtiofsd.pid" ] && stop_pidfile "$g/virtiofsd.pid"
	rm -f "$g/vfs.sock" "$g/vfs.sock.pid"
	return 0
}

guests_down() {
	local g
	for g in "$dir"/g*/; do
		[ -d "$g" ] || continue
		g=${g%/}
		guest_stop "${g##*/g}"
	done
	return 0
}

# The kernel release guest directory G runs now: the last "bpflab-guest: kernel REL,"
# line of its console (init.sh prints one at every boot, so a kexec by its kernel
# provider shows), else the one it was started with (G/kernel).
guest_kernel() { # G
	local k
	k=$(sed -n 's/^bpflab-guest: kernel \([^ ,]*\),.*/\1/p' "$1/console" 2>/dev/null | tail -n 1)
	[ -n "$k" ] && echo "$k" || cat "$1/kernel"
}

# ", nic MODEL" for a guest directory G with NIC ports (G/nic), nothing for veth ports.
guest_nic_label() { # G
	[ -f "$1/nic" ] && echo ", nic $(cat "$1/nic")"
	return 0
}

guests_status() {
	local g
	for g in "$dir"/g*/; do
		[ -f "$g/kernel" ] || continue
		if [ -f "$g/qemu.pid.launch" ] && kill -0 "$(cat "$g/qemu.pid.launch")" 2>/dev/null; then
			echo "  guest $(basename "$g") ($(guest_kernel "$g")$(guest_nic_label "$g")): running, console $g""console"
		else
			echo "  guest $(basename "$g") ($(cat "$g/kernel")$(guest_nic_label "$g")): stopped"
		fi
	done
}
