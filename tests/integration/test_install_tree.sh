#!/bin/bash
# test_install_tree.sh - make install and uninstall into scratch roots, nothing on this
# machine touched (issue 26): the installed binaries find their BPF objects and plans
# without flags, also after the tree is moved (relocatable); uninstall leaves only the
# configuration; the man pages render without warnings and document every option of
# each command's --help and none it lacks; the systemd units pass systemd-analyze
# verify (not started); bash completion gives objects, commands and options.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"
unset BPFLAB_BPF_DIR
export MANWIDTH=80 LC_ALL=C.UTF-8

# --- make install PREFIX=/usr DESTDIR=...: the layout, and files found without flags
make -s -C "$top" --no-print-directory PREFIX=/usr DESTDIR="$tmp/root" install > "$tmp/install.out" 2>&1 ||
	{ cat "$tmp/install.out"; fail "make install"; }
r=$tmp/root/usr
for f in bin/bpflab sbin/bpflabd sbin/bpflab-agent share/bpflab/plans/quickstart.yaml \
	share/bpflab/schema/001_init.sql share/doc/bpflab/docs/cli.md share/man/man8/bpflab.8 \
	share/man/man8/bpflabd.8 share/man/man8/bpflab-agent.8 share/man/man5/bpflab-plan.5 \
	share/bash-completion/completions/bpflab share/doc/bpflab/LICENSE \
	share/doc/bpflab/LICENSES/LGPL-2.1; do
	check "installed $f" test -e "$r/$f"
done
# PREFIX/lib: BPF objects, the lab, its links to the binaries, the units
for f in bpflab/bpf/xdp_basic.bpf.o bpflab/lab/lab bpflab/lab/guest/init.sh bpflab/bin/bpflabd \
	systemd/system/bpflabd.service systemd/system/bpflab-agent.service; do
	check "installed PREFIX/lib/$f" test -e "$r/lib/$f"
done
check "configuration in DESTDIR/etc/bpflab (PREFIX=/usr)" test -f "$tmp/root/etc/bpflab/bpflabd.conf"
check "no test-only BPF object installed" test ! -e "$r/lib/bpflab/bpf/test_agent.bpf.o"
check "units name /usr/sbin and /etc" grep -qx 'ExecStart=/usr/sbin/bpflabd --config /etc/bpflab/bpflabd.conf' "$r/lib/systemd/system/bpflabd.service"
check "the lab's bin links reach the binaries" test -x "$r/lib/bpflab/bin/bpflab-agent"

check "installed bpflab checks an installed plan with no --bpf-dir" \
	"$r/bin/bpflab" plan check "$r/share/bpflab/plans/quickstart.yaml"
mv "$tmp/root/usr" "$tmp/moved"
check "moved tree: bpflab still finds its BPF objects" \
	"$tmp/moved/bin/bpflab" plan check "$tmp/moved/share/bpflab/plans/quickstart.yaml"
mv "$tmp/moved/lib/bpflab/bpf" "$tmp/moved/lib/bpflab/bpf.away"
rc=0
"$tmp/moved/bin/bpflab" plan check "$tmp/moved/share/bpflab/plans/quickstart.yaml" \
	> /dev/null 2> "$tmp/nobpf.err" || rc=$?
check "without its BPF objects: exit 2 naming FILE:LINE ($(head -c 160 "$tmp/nobpf.err"))" \
	grep -q "quickstart.yaml:[0-9]*:[0-9]*: cannot open object 'xdp_basic.bpf.o'" "$tmp/nobpf.err"
check "... with exit status 2 (got $rc)" test "$rc" = 2
mv "$tmp/moved/lib/bpflab/bpf.away" "$tmp/moved/lib/bpflab/bpf"
mv "$tmp/moved" "$tmp/root/usr"

# --- uninstall: nothing but directories and the configuration (the admin's) is left
make -s -C "$top" --no-print-directory PREFIX=/usr DESTDIR="$tmp/root" uninstall
left=$(find "$tmp/root" -type f -o -type l | sed "s|^$tmp/root||" | grep -v '^/etc/bpflab/' || true)
check "uninstall removes every file but /etc ($left)" test -z "$left"

# --- man pages: rendered without a warning; the options of --help, all and only
make -s -C "$top" --no-print-directory man
for p in bpflab.8 bpflabd.8 bpflab-agent.8 bpflab-plan.5; do
	warn=$(man --warnings -l "$top/build/man/$p" 2>&1 >/dev/null || echo "man failed")
	check "man --warnings $p is clean ($warn)" test -z "$warn"
done
# the options a --help text defines: its grammar (to the first blank line) and the first
# word of each line of its option list
help_opts() {
	awk '/^[Uu]sage:/ { g = 1 } g && /^[[:space:]]*$/ { g = 0 }
	g { while (match($0, /--[a-z][a-z0-9-]*/)) { print substr($0, RSTART, RLENGTH)
		$0 = substr($0, RSTART + RLENGTH) } next }
	/^[[:space:]]+(-[a-zA-Z], )?--[a-z]/ { sub(/^[[:space:]]+(-[a-zA-Z], )?/, "")
		match($0, /^--[a-z][a-z0-9-]*/); print substr($0, RSTART, RLENGTH) }' | sort -u
}
# the options a page documents: the tags of its lists and its synopsis
page_opts() {
	sed 's/\\-/-/g' "$1" | awk '/^\.TP/ { getline; print } /^\.SH SYNOPSIS/ { s = 1; next }
		/^\.SH/ { s = 0 } s' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}
page_all() { sed 's/\\-/-/g' "$1" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u; }
{
	"$bpflab" --help; "$bpflab" keygen --help; "$bpflab" serve --help
	for o in plan host run result bisect link; do "$bpflab" "$o" --help; done
	"$bpflab" --help | sed -n 's/^       bpflab \([a-z]*\) \([a-z]*\).*/\1 \2/p' | sort -u |
		while read -r o c; do "$bpflab" "$o" "$c" --help; done
} 2>&1 | help_opts > "$tmp/bpflab.help"
"$bin/bpflabd" --help | help_opts > "$tmp/bpflabd.help"
"$bin/bpflab-agent" --help | help_opts > "$tmp/bpflab-agent.help"
check "bpflab --help and its commands' define over 50 options ($(wc -l < "$tmp/bpflab.help"))" \
	test "$(wc -l < "$tmp/bpflab.help")" -gt 50
for b in bpflab bpflabd bpflab-agent; do
	page_all "$top/build/man/$b.8" > "$tmp/$b.all"
	page_opts "$top/build/man/$b.8" > "$tmp/$b.doc"
	missing=$(comm -23 "$tmp/$b.help" "$tmp/$b.all" | tr '\n' ' ')
	stale=$(comm -13 "$tmp/$b.help" "$tmp/$b.doc" | tr '\n' ' ')
	check "$b(8) documents every option of --help (missing: $missing)" test -z "$missing"
	check "$b(8) documents no option --help lacks (stale: $stale)" test -z "$stale"
done
# the check itself: an option the page lacks is seen
echo "  --frobnicate  a made-up option" | sed 's/^/Usage: x\n\n/' | help_opts > "$tmp/fake.help"
check "the check sees an undocumented option" \
	test "$(comm -23 "$tmp/fake.help" "$tmp/bpflabd.all")" = "--frobnicate"

# --- units: installed at a PREFIX whose binaries exist, verified, never started
make -s -C "$top" --no-print-directory PREFIX="$tmp/prefix" install > /dev/null
out=$(cd "$tmp" && MANPATH="$tmp/prefix/share/man" systemd-analyze verify \
	"$tmp/prefix/lib/systemd/system/bpflabd.service" \
	"$tmp/prefix/lib/systemd/system/bpflab-agent.service" 2>&1) && rc=0 || rc=$?
check "systemd-analyze verify: the units are clean (rc $rc: $out)" test "$rc" = 0 -a -z "$out"
sed 's|^ExecStart=.*bpflabd |ExecStart=/nonexistent/bpflabd |' \
	"$tmp/prefix/lib/systemd/system/bpflabd.service" > "$tmp/broken.service"
check "systemd-analyze verify sees a unit whose binary is missing" \
	bash -c "! (cd '$tmp' && MANPATH='$tmp/prefix/share/man' systemd-analyze verify '$tmp/broken.service' >/dev/null 2>&1)"
check "the agent's unit bounds its capabilities" \
	grep -q '^CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_NET_ADMIN CAP_NET_RAW CAP_SYS_ADMIN CAP_SYS_NICE$' \
	"$tmp/prefix/lib/systemd/system/bpflab-agent.service"
check "bpflabd's unit runs as bpflab with no capability" \
	grep -qx 'CapabilityBoundingSet=' "$tmp/prefix/lib/systemd/system/bpflabd.service"

# --- configuration files: bpflabd --config, the client's file; flags and the
# environment override them; errors name FILE:LINE
cat > "$tmp/bpflabd.conf" <<CONF
# the coordinator of this test
agents = ipc://$tmp/agents.sock
clients = ipc://$tmp/wrong.sock
db = $tmp/conf.db
plaintext = yes
log = $tmp/bpflabd.log
CONF
"$bin/bpflabd" --config "$tmp/bpflabd.conf" --clients "ipc://$tmp/clients.sock" &
dpid=$!
cleanup_pid() { kill "$dpid" 2>/dev/null || true; wait "$dpid" 2>/dev/null || true; }
trap 'rc=$?; set +e; cleanup_pid; (exit $rc); on_exit' EXIT
wait_for 10 test -S "$tmp/clients.sock" || fail "bpflabd --config did not serve"
check "bpflabd: the flag's --clients wins over the file's" test ! -e "$tmp/wrong.sock"
check "bpflabd: the file's log and database are used" grep -q "database '$tmp/conf.db'" "$tmp/bpflabd.log"
printf 'coordinator = ipc://%s/clients.sock\nplaintext = yes\ntimeout = 3\n' "$tmp" > "$tmp/client.conf"
check "client: BPFLAB_CONFIG gives coordinator and plaintext" \
	env -u BPFLAB_COORDINATOR -u BPFLAB_KEY -u BPFLAB_SERVER_KEY BPFLAB_CONFIG="$tmp/client.conf" \
	"$bpflab" host list
mkdir -p "$tmp/home/.config/bpflab"
cp "$tmp/client.conf" "$tmp/home/.config/bpflab/config"
check "client: ~/.config/bpflab/config is read" \
	env -u BPFLAB_COORDINATOR -u BPFLAB_KEY -u BPFLAB_SERVER_KEY -u XDG_CONFIG_HOME HOME="$tmp/home" \
	"$bpflab" host list
rc=0
env -u BPFLAB_KEY -u BPFLAB_SERVER_KEY BPFLAB_CONFIG="$tmp/client.conf" \
	BPFLAB_COORDINATOR="ipc://$tmp/none.sock" "$bpflab" --timeout 1 host list 2> "$tmp/env.err" || rc=$?
check "client: the environment overrides the file ($(head -c 120 "$tmp/env.err"))" \
	grep -q "ipc://$tmp/none.sock" "$tmp/env.err"
printf 'coordinator = x\n\nfrob = 1\n' > "$tmp/bad.conf"
rc=0
BPFLAB_CONFIG="$tmp/bad.conf" "$bpflab" host list 2> "$tmp/bad.err" || rc=$?
check "client: an unknown key is FILE:LINE, exit 2 (rc $rc: $(head -n 1 "$tmp/bad.err"))" \
	bash -c "[ $rc = 2 ] && grep -q '^bpflab: $tmp/bad.conf:3: unknown key .frob.' '$tmp/bad.err'"
printf 'agents = ipc://x\nplaintext = perhaps\n' > "$tmp/bad.conf"
rc=0
"$bin/bpflabd" --config "$tmp/bad.conf" 2> "$tmp/badd.err" || rc=$?
check "bpflabd: a bad value is FILE:LINE, exit 2 (rc $rc: $(head -n 1 "$tmp/badd.err"))" \
	bash -c "[ $rc = 2 ] && grep -q '$tmp/bad.conf:2: .plaintext. takes yes or no' '$tmp/badd.err'"
cleanup_pid

# --- bash completion: objects, commands and options from --help
comp() { # WORD... -> the completions of the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _bpflab; echo "${COMPREPLY[*]}"' \
		_ "$top/dist/bash-completion/bpflab" "$@"
}
check "completion: objects" test "$(comp "$bpflab" r)" = "result run"
check "completion: commands of result" \
	test "$(comp "$bpflab" result "")" = "compare export history import show verifier help"
check "completion: options of result compare" test "$(comp "$bpflab" result compare --mi)" = "--min-effect"
finish
