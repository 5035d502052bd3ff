# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# lib.sh - sourced by the bench scripts on a lab of their own (validity.sh, ndr.sh),
# after they set `top`, `bench` (their name in messages) and `usage_lines` (the lines of
# their header that usage prints): messages, and the end of a run that tears its lab
# down and removes its temporary folder whatever happened.
#
#   bench_traps       on exit (also on INT and TERM): bench_on_exit if the script defines
#                     one, then `lab/lab down --name $lab --subnet $subnet --purge` if
#                     $lab_started is 1, then $tmp removed unless $keep is 1
usage() { sed -n "${usage_lines}p" "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "$bench: $*" >&2; exit 1; }
log() { echo "$bench: $*" >&2; }

bench_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if declare -F bench_on_exit >/dev/null; then bench_on_exit; fi
	if [ "${lab_started:-0}" = 1 ]; then
		"$top/lab/lab" down --name "$lab" --subnet "$subnet" --purge >/dev/null 2>&1 || true
	fi
	if [ "${keep:-0}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
	exit "$rc"
}
bench_traps() {
	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
