#!/bin/sh
# Run libFuzzer targets for a bounded time each and summarise.
#
#   sh tests/fuzz/run.sh SECONDS TARGET...
#
# Each TARGET (build/fuzz/fuzz_NAME) runs for SECONDS on a scratch copy of its seed
# corpus tests/fuzz/corpus/NAME/ (in tests/fuzz/corpus-run/NAME/, which git ignores, so
# the seeds stay small and reviewed). Crash, leak and timeout inputs are kept next to the
# target binary as TARGET-crash-*, -leak-*, -timeout-*; reproduce one with
# `TARGET FILE`. A script tests/fuzz/seed-NAME.sh, when there is one, adds seeds made at
# run time to the scratch corpus (seed-keys.sh: fresh CURVE key pairs). UBSan findings are made fatal. Exits 1 when any target failed.
set -u

if [ $# -lt 2 ]; then
	echo "usage: $0 SECONDS TARGET..." >&2
	exit 2
fi
seconds=$1
shift
case $seconds in
''|*[!0-9]*) echo "$0: SECONDS must be a number, got '$seconds'" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:allocator_may_return_null=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

failed=0
summary=""
for target in "$@"; do
	name=$(basename "$target")
	short=${name#fuzz_}
	if [ ! -x "$target" ]; then
		echo "$0: no fuzz target '$target' (make $target)" >&2
		failed=1
		summary="$summary
  $name: missing"
		continue
	fi
	seeds="$here/corpus/$short"
	work="$here/corpus-run/$short"
	rm -rf "$work"
	mkdir -p "$work"
	if [ -d "$seeds" ]; then
		cp "$seeds"/* "$work"/ 2>/dev/null || true
	fi
	# seeds made at run time (generated keys are never kept in the repository)
	if [ -f "$here/seed-$short.sh" ] &&
	   ! BPFLAB="$(dirname "$target")/../bin/bpflab" sh "$here/seed-$short.sh" "$work"; then
		echo "$0: cannot make the seeds of $name" >&2
		failed=1
	fi
	log="$work.log"
	artifacts="$(cd "$(dirname "$target")" && pwd)/$name-"
	echo "fuzz: $name for ${seconds}s on $(ls "$work" | wc -l) seeds (log: $log)"
	"$target" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
		-timeout=30 -print_final_stats=1 -artifact_prefix="$artifacts" \
		"$work" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	units=$(ls "$work" | wc -l)
	if [ $rc -eq 0 ]; then
		result="ok"
	else
		result="FAILED (exit $rc)"
		failed=1
		echo "--- $name: last lines of $log" >&2
		tail -n 40 "$log" >&2
	fi
	summary="$summary
  $name: ${execs:-?} executions in ${seconds}s, corpus $units inputs: $result"
done

echo "fuzz summary:$summary"
exit $failed
