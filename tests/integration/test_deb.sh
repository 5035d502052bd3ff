#!/bin/bash
# test_deb.sh - the Debian package on this machine (issue 26, "Done when"): make deb,
# dpkg -i, then the installed bpflab, bpflabd, bpflab-agent with man pages, keys, the
# system user, completion and verified units; the lab in a box on the installed
# binaries (lab/lab up --installed) runs the installed quickstart plan; dpkg --purge
# leaves nothing behind. Purged also when a check fails. Skipped when a bpflab package
# is already installed here (the test would replace it).
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"
unset BPFLAB_BPF_DIR
export LC_ALL=C.UTF-8 MANWIDTH=80

if dpkg-query -W -f='${Status}' bpflab 2>/dev/null | grep -q installed; then
	skip_test "a bpflab package is installed on this machine already"
fi
deb_purge() { dpkg --purge bpflab > "$tmp/purge.out" 2>&1 || cat "$tmp/purge.out"; }
# the lab first (it runs the installed binaries), then the package, then lib.sh's end
trap 'rc=$?; set +e; lab_stop; deb_purge; (exit $rc); on_exit' EXIT

make -s -C "$top" --no-print-directory deb > "$tmp/deb.out" 2>&1 || { cat "$tmp/deb.out"; exit 1; }
deb=$(sed -n 's/^deb: //p' "$tmp/deb.out")
check "make deb built bpflab_VERSION_ARCH.deb ($deb)" test -f "$top/$deb"
check "package named bpflab_<version>_$(dpkg --print-architecture).deb" \
	bash -c "[[ '$deb' =~ bpflab_[0-9][^_]*_$(dpkg --print-architecture)\\.deb$ ]]"
dpkg -i "$top/$deb" > "$tmp/install.out" 2>&1 || { cat "$tmp/install.out"; fail "dpkg -i"; }
check "dpkg: bpflab installed" bash -c "dpkg-query -W -f='\${Status}' bpflab | grep -q 'install ok installed'"

# --- the installed tool
check "bpflab on PATH is /usr/bin/bpflab" test "$(command -v bpflab)" = /usr/bin/bpflab
check "bpflab --version ($(bpflab --version 2>&1))" bash -c "bpflab --version | grep -Eq '^bpflab [0-9]'"
check "bpflabd --help" bash -c "/usr/sbin/bpflabd --help | grep -q -- '--agents'"
check "bpflab-agent --help" bash -c "/usr/sbin/bpflab-agent --help | grep -q -- '--coordinator'"
for p in bpflab bpflabd bpflab-agent bpflab-plan; do
	check "man $p" bash -c "man -P cat $p 2>/dev/null | grep -q '^NAME'"
done
check "man bpflab-plan is section 5" bash -c "man -w bpflab-plan | grep -q man5/bpflab-plan.5"
check "installed plan checks with no --bpf-dir" bpflab plan check /usr/share/bpflab/plans/quickstart.yaml
check "system user bpflab, no login" bash -c "getent passwd bpflab | grep -q ':/usr/sbin/nologin$'"
check "coordinator key made on install, group bpflab, 0640" \
	test "$(stat -c '%G %a' /etc/bpflab/keys/coordinator.key_secret)" = "bpflab 640"
check "agent key made on install, root's" \
	test "$(stat -c '%U %G %a' /etc/bpflab/keys/agent.key_secret)" = "root root 640"
check "the local client's certificate is let in" test -f /etc/bpflab/authorized/client.key
check "/var/lib/bpflab belongs to bpflab" test "$(stat -c %U /var/lib/bpflab)" = bpflab
check "completion installed" test -f /usr/share/bash-completion/completions/bpflab
check "Debian's copyright file names the licences" \
	grep -q '^License: LGPL-2.1 or BSD-2-Clause' /usr/share/doc/bpflab/copyright
check "LICENSE and LICENSES/ installed" test -f /usr/share/doc/bpflab/LICENSES/GPL-2.0
out=$(cd "$tmp" && systemd-analyze verify bpflabd.service bpflab-agent.service 2>&1) && rc=0 || rc=$?
check "systemd-analyze verify of the installed units (rc $rc: $out)" test "$rc" = 0 -a -z "$out"
check "the conffiles are the files of /etc/bpflab" \
	test "$(dpkg-query -W -f='${Conffiles}' bpflab | awk '{ print $1 }' | sort | tr '\n' ' ')" = \
	"/etc/bpflab/agent.env /etc/bpflab/bpflabd.conf /etc/bpflab/client.conf "
# the shipped bpflabd.conf with its keys made on install, the endpoints and database
# overridden by flags: bpflabd serves with CURVE, then stops on SIGTERM
timeout -s TERM 3 /usr/sbin/bpflabd --config /etc/bpflab/bpflabd.conf --agents "ipc://$tmp/a.sock" \
	--clients "ipc://$tmp/c.sock" --db "$tmp/conf.db" > "$tmp/conf.out" 2>&1 || true
check "bpflabd --config /etc/bpflab/bpflabd.conf serves, flags overriding ($(tail -n 2 "$tmp/conf.out" | tr '\n' ' '))" \
	grep -q "serving agents on ipc://$tmp/a.sock, clients on ipc://$tmp/c.sock, database '$tmp/conf.db'" "$tmp/conf.out"
check "... with CURVE from the installed keys" bash -c "! grep -q plaintext '$tmp/conf.out'"

# --- the lab in a box on the installed binaries
lab_start 2 --installed
exe_of() { readlink "/proc/$(cat "$1")/exe"; }
check "bpflabd of the lab is /usr/sbin/bpflabd ($(exe_of "$BPFLAB_LAB_DIR/bpflabd.pid"))" \
	test "$(exe_of "$BPFLAB_LAB_DIR/bpflabd.pid")" = /usr/sbin/bpflabd
check "the agents are /usr/sbin/bpflab-agent" \
	test "$(exe_of "$BPFLAB_LAB_DIR/h2/agent.pid")" = /usr/sbin/bpflab-agent
out=$(bpflab run submit /usr/share/bpflab/plans/quickstart.yaml \
	-s traffic.duration=1s -s traffic.warmup=500ms --wait 2>&1) || fail "run submit: $out"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "installed quickstart submitted (run '$run')" test -n "$run"
check "18 jobs done on the installed agents" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=${run:-0} AND state='done' AND $planned")" = 18
check "samples stored" test "$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id
	WHERE j.run_id=${run:-0}")" -gt 0
check "bpflab result show on the installed CLI" bpflab result show "${run:-0}"
ver=$(bpflab --version | awk '{ print $2 }')
check "the agent's version ($ver) in its inventory" \
	bash -c "bpflab -j host show h1 | grep -q '\"agent_version\": *\"$ver\"'"
with=$(sql "SELECT count(*) FROM jobs j JOIN host_envs e ON e.id = j.env_id
	WHERE j.run_id=${run:-0} AND json_extract(e.inventory, '\$.agent_version') = '$ver'")
check "... and in the stored environment of every job of the run ($with)" \
	test "$with" -ge 18 -a "$with" = "$(sql "SELECT count(*) FROM jobs WHERE run_id=${run:-0} AND env_id IS NOT NULL")"
comp() { # WORD... -> the completions of the last word, through the installed file
	bash -c '. /usr/share/bash-completion/completions/bpflab; COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1)); _bpflab; echo "${COMPREPLY[*]}"' _ "$@"
}
ids=$(comp bpflab run show "")
check "completion: run ids from the coordinator ($ids)" bash -c "echo '$ids' | grep -qw '${run:-x}'"
check "completion: host names ($(comp bpflab host show ""))" test "$(comp bpflab host show "")" = "h1 h2"
check "completion: plan names" test "$(comp bpflab result history --plan "")" = quickstart
lab_stop

# --- purge: nothing left
deb_purge
check "purged: package gone" bash -c "! dpkg-query -W -f='\${Status}' bpflab 2>/dev/null | grep -q installed"
for p in /usr/bin/bpflab /usr/sbin/bpflabd /usr/lib/bpflab /usr/share/bpflab /etc/bpflab \
	/var/lib/bpflab /usr/share/man/man8/bpflab.8.gz /usr/share/man/man8/bpflab.8 \
	/usr/lib/systemd/system/bpflabd.service /lib/systemd/system/bpflabd.service; do
	check "purged: no $p" test ! -e "$p"
done
check "purged: no user bpflab" bash -c "! getent passwd bpflab"
check "purged: no group bpflab" bash -c "! getent group bpflab"
finish
