#!/bin/bash
# test_readonly_db.sh - `bpflab --db` and `bpflab serve` on a database a normal user may
# only read (docs/store.md, "Read-only opens"): a 0444 file in a 0555 directory, read as
# user nobody: every read command answers, the dashboard serves, no -wal or -shm is left,
# writes are refused with a clear message. Then a live writer's file (its -wal present):
# the reader sees the writer's commits that are only in the -wal. No lab needed.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/bpflab-ro.XXXXXX)
chmod 755 "$tmp"
dir="$tmp/ro"
db="$dir/lab.db"
pids=()
ro_cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	chmod -R u+w "$tmp" 2>/dev/null || true
}
# on_exit (lib.sh) takes the test's status from $?: kept across ro_cleanup
trap 'ro_rc=$?; ro_cleanup; set +e; (exit $ro_rc); on_exit' EXIT
cleanup_later "$tmp"
mkdir "$dir"
as_nobody() { setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups "$@"; }
as_nobody true || skip_test "setpriv cannot switch to user nobody here"

printf 'a,xdp_drop,1,10\na,xdp_drop,2,12\nb,xdp_drop,1,20\nb,xdp_drop,2,21\n' > "$tmp/v.csv"
"$bpflab" --db "$db" result import "$tmp/v.csv" --plan p --kernel 6.1.0 >/dev/null
"$bpflab" --db "$db" result import "$tmp/v.csv" --plan p --kernel 6.2.0 >/dev/null
chmod 0444 "$db"
chmod 0555 "$dir"
only_db() { [ "$(ls -A "$dir")" = "lab.db" ]; }
check "the directory holds the file alone before the reads" only_db

# COMMAND... as nobody: exit 0 and OUT holds its output
read_ok() {
	as_nobody "$bpflab" --db "$db" "$@" > "$tmp/out" 2>&1 || { cat "$tmp/out"; return 1; }
}
check "result show as nobody" read_ok result show 1
check "  ... prints the run" grep -q '^run 1  p ' "$tmp/out"
check "result show -j as nobody" read_ok result show 2 -j
check "result compare as nobody" read_ok result compare 1 2
check "  ... compares" grep -q 'run 1 -> 2' "$tmp/out"
check "result history as nobody" read_ok result history --plan p --metric prog.ns_per_run
check "  ... both kernels" grep -q '^6.2.0' "$tmp/out"
check "result export kcidb as nobody" read_ok result export 1 --format kcidb
check "result export bmf as nobody" read_ok result export 2 --format bmf
check "run list as nobody" read_ok run list
check "run show as nobody" read_ok run show 1
check "host list as nobody" read_ok host list
check "link list as nobody" read_ok link list
check "bisect list as nobody" read_ok bisect list
check "no -wal or -shm after the reads" only_db

serve() {
	setsid setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
		"$bpflab" serve --db "$db" --http 127.0.0.1:0 > "$tmp/url" 2>&1 &
	pids+=($!)
	wait_for 10 grep -qs '^http://' "$tmp/url" || { cat "$tmp/url"; return 1; }
}
check "bpflab serve as nobody starts" serve
url=$(grep -m 1 '^http://' "$tmp/url" || true)
url=${url%/}
page() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$url$1")" = 200 ]; }
check "serve: / answers 200" page /
check "serve: /runs/1 answers 200" page /runs/1
check "serve: /api/runs/2 answers 200" page /api/runs/2
check "serve: /hosts answers 200" page /hosts
kill "${pids[0]}" 2>/dev/null || true
check "no -wal or -shm after serve" only_db

# writes: refused before SQLite's "attempt to write a readonly database"
refused() { # COMMAND...: exit 1 and a message saying why
	local rc=0
	as_nobody "$bpflab" --db "$db" "$@" > "$tmp/out" 2>&1 || rc=$?
	cat "$tmp/out"
	[ "$rc" = 1 ] && grep -q "cannot open database '$db': the file is read-only" "$tmp/out"
}
check "result import refused with the reason" refused result import "$tmp/v.csv" --plan q
check "bisect start refused with the reason" refused bisect start --plan p \
	--metric prog.ns_per_run --good 6.1.0 --bad 6.2.0
check "no -wal or -shm after the refused writes" only_db
dir_refused() { # a writable file in a read-only directory: no room for its -wal
	local rc=0
	chmod 0666 "$db"
	as_nobody "$bpflab" --db "$db" result import "$tmp/v.csv" --plan q > "$tmp/out" 2>&1 ||
		rc=$?
	chmod 0444 "$db"
	cat "$tmp/out"
	[ "$rc" = 1 ] && grep -q "its directory '$dir' is not writable" "$tmp/out"
}
check "a writable file in a read-only directory: write refused" dir_refused
check "no -wal or -shm after it" only_db
chmod 0755 "$dir"
chmod 0644 "$db"

# a live writer: a connection held open keeps the -wal; a commit it cannot fold in stays
# there, and a read-only reader must see it (immutable would not)
fifo="$tmp/fifo"
mkfifo "$fifo"
sqlite3 "$db" < "$fifo" > /dev/null &
pids+=($!)
exec 7> "$fifo"
echo "SELECT count(*) FROM runs;" >&7
wal_there() { [ -e "$db-wal" ]; }
check "the held connection keeps a -wal" wait_for 10 wal_there
"$bpflab" --db "$db" result import "$tmp/v.csv" --plan p --kernel 6.3.0 >/dev/null
check "run 3 is in the -wal only" test -s "$db-wal"
check "run list as nobody beside a live writer" read_ok run list
check "  ... sees run 3, committed in the -wal" grep -q '^ *3  p ' "$tmp/out"
exec 7>&-
wait "${pids[-1]}" 2>/dev/null || true
gone() { only_db; }
check "the writer's -wal and -shm go with it" wait_for 10 gone

finish
