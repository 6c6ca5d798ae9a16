#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gaol: runs the libFuzzer targets of tests/fuzz (built by `make fuzz-build`).
#
#   tests/fuzz/run.sh smoke SECONDS   each target from the committed corpus;
#                                     what it finds is thrown away afterwards
#   tests/fuzz/run.sh long SECONDS    each target; new inputs are kept in
#                                     build/fuzz/corpus/<target>/
#   tests/fuzz/run.sh merge           adds the kept inputs that reach new code
#                                     to tests/fuzz/corpus/<target>/
#
# FUZZ_TARGETS (space-separated) narrows the list.  A crash, a leak, a
# sanitizer report or a broken check stops with status 1; the input is in
# build/fuzz/artifacts/<target>-crash-*, to be fixed and then committed into
# the target's corpus as a regression input.  One line per target says how
# many inputs it ran.
set -u
cd "$(dirname "$0")/../.."

mode=${1:?usage: run.sh smoke|long SECONDS | merge}
seconds=${2:-60}
B=build/fuzz
TARGETS=${FUZZ_TARGETS:-run_request eval_request timeout utf8 lang_manifest compare files judge0_zip}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ARGS=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -max_len=65536)

mkdir -p "$B/artifacts"
status=0
for t in $TARGETS; do
	bin=$B/fuzz_$t
	seeds=tests/fuzz/corpus/$t
	[ -x "$bin" ] || { echo "fuzz: $bin is not built (make fuzz-build)" >&2; exit 1; }
	[ -d "$seeds" ] || { echo "fuzz: $seeds is missing" >&2; exit 1; }
	case $mode in
	smoke) work=$B/smoke/$t; rm -rf "$work" ;;
	long)  work=$B/corpus/$t ;;
	merge)
		[ -d "$B/corpus/$t" ] || continue
		"$bin" -merge=1 "$seeds" "$B/corpus/$t" >"$B/$t-merge.log" 2>&1 ||
			{ tail -30 "$B/$t-merge.log"; status=1; continue; }
		echo "fuzz: $t: corpus now $(ls "$seeds" | wc -l) inputs"
		continue ;;
	*) echo "fuzz: unknown mode $mode" >&2; exit 2 ;;
	esac
	mkdir -p "$work"
	log=$B/$t.log
	"$bin" "${ARGS[@]}" -max_total_time="$seconds" -artifact_prefix="$B/artifacts/$t-" \
		"$work" "$seeds" >"$log" 2>&1
	rc=$?
	runs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log")
	if [ $rc -ne 0 ]; then
		tail -60 "$log"
		echo "fuzz: $t: FAILED after ${runs:-?} runs (input in $B/artifacts/)" >&2
		status=1
		continue
	fi
	echo "fuzz: $t: ${runs:-?} runs in ${seconds}s, corpus $(ls "$seeds" | wc -l) committed + $(ls "$work" | wc -l) new, no crash"
done
[ "$mode" = smoke ] && rm -rf "$B/smoke"
exit $status
