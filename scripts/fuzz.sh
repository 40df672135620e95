#!/bin/bash
# Fuzz pysbx's parsers with libFuzzer (clang, glibc, ASan + UBSan).
#
#   scripts/fuzz.sh [--no-build] SECONDS [TARGET...]
#                                   fuzz each target for SECONDS
#   scripts/fuzz.sh --merge [TARGET...]
#                                   fold new coverage into the repo corpus
#
# Targets are test/fuzz/*.c (all of them by default). Each one runs alone
# (one core), from a working corpus build/fuzz/corpus/TARGET seeded with
# test/fuzz/corpus/TARGET (plus policies/ for fuzz_policy, and the plans of
# that corpus for fuzz_plan), so the repository's corpus only changes with
# --merge. Crash, leak and timeout inputs go to build/fuzz/crashes/, logs to
# build/fuzz/logs/. Exit status: 0 nothing found, 1 a target crashed (or
# hung, or leaked), 100 usage, 111 the build failed.
# See docs/FUZZING.md.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 111
B=build/fuzz

usage() {
	echo "usage: scripts/fuzz.sh [--no-build] SECONDS [TARGET...]" \
		"| --merge [TARGET...]" >&2
	exit 100
}

build=1
if [ "${1:-}" = --no-build ]; then	# use build/fuzz/* as they are
	build=0
	shift
fi
[ $# -ge 1 ] || usage
mode=run
if [ "$1" = --merge ]; then
	mode=merge
elif ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
	usage
fi
secs=$1
shift

all=$(cd test/fuzz && ls *.c 2>/dev/null | sed 's/\.c$//')
targets=${*:-$all}
for t in $targets; do
	[ -f "test/fuzz/$t.c" ] ||
		{ echo "fuzz.sh: no target test/fuzz/$t.c" >&2; exit 100; }
done

if [ $build = 1 ] && ! make -s fuzz; then
	echo "fuzz.sh: fatal: unable to build the fuzz targets (make fuzz)" >&2
	exit 111
fi

export PYSBX_FUZZ_POLICIES="$root/policies"
# Leaks are findings too; abort on the first UBSan report so that it is
# kept as a crash instead of scrolling by.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}"

common=(-max_len=8192 -timeout=10 -rss_limit_mb=2048)
# A target's own dictionary (test/fuzz/TARGET.dict), else the policy one.
dict() {
	if [ -f "test/fuzz/$1.dict" ]; then
		echo "-dict=test/fuzz/$1.dict"
	else
		echo "-dict=test/fuzz/policy.dict"
	fi
}

mkdir -p "$B/crashes" "$B/logs"

# seed TARGET DIR [POLICY_DIR]: a corpus as the repository defines it: its
# seeds, the shipped policies (fuzz_policy), and the plan text of every
# policy in POLICY_DIR that parses (fuzz_plan; fuzz_policy writes it).
seed() {
	local t=$1 dir=$2 f
	mkdir -p "$dir"
	[ -d "test/fuzz/corpus/$t" ] &&
		cp -n test/fuzz/corpus/"$t"/* "$dir"/ 2>/dev/null
	case $t in
	fuzz_policy)
		for f in policies/*; do
			[ -f "$f" ] && cp "$f" "$dir/policies-$(basename "$f")"
		done
		;;
	fuzz_plan)
		find "$3" -type f -print0 |
			PYSBX_FUZZ_PLAN_OUT="$dir" xargs -0 -r "$B/fuzz_policy" \
				>/dev/null 2>&1
		;;
	esac
}

# --merge: libFuzzer's -merge=1 into a fresh seed corpus (what every run
# starts from anyway); the inputs it adds for new coverage are copied into
# test/fuzz/corpus/TARGET. -use_counters=0: an input is kept for a new
# edge, not for a new hit count of a known one, which keeps the repository
# corpus small (a few hundred files instead of thousands). fuzz_policy
# first: fuzz_plan's seeds come from it.
if [ "$mode" = merge ]; then
	m=$B/merge
	for t in $(printf '%s\n' $targets | sort -r); do
		[ -d "$B/corpus/$t" ] || continue
		rm -rf "$m/$t" "$m/policy-base"
		seed fuzz_policy "$m/policy-base"
		seed "$t" "$m/$t" "$m/policy-base"
		ls "$m/$t" | sort >"$m/$t.before"
		if ! "$B/$t" -merge=1 -use_counters=0 "${common[@]}" "$(dict "$t")" \
			"$m/$t" "$B/corpus/$t" \
			>"$B/logs/$t.merge.log" 2>&1; then
			echo "fuzz.sh: merge of $t failed, see" \
				"$B/logs/$t.merge.log" >&2
			exit 1
		fi
		mkdir -p "test/fuzz/corpus/$t"
		ls "$m/$t" | sort | comm -13 "$m/$t.before" - |
			while read -r f; do cp "$m/$t/$f" "test/fuzz/corpus/$t/"; done
		n=$(ls "test/fuzz/corpus/$t" | wc -l)
		echo "$t: $(comm -13 "$m/$t.before" <(ls "$m/$t" | sort) |
			wc -l) inputs added; test/fuzz/corpus/$t has $n files"
		[ "$n" -le 300 ] ||
			echo "fuzz.sh: warning: more than 300 files in" \
				"test/fuzz/corpus/$t" >&2
	done
	exit 0
fi

# "#12345 DONE cov: 1 ft: 2 corp: 3/4b ..." and -print_final_stats lines.
field() { sed -n "s/^$2: *//p" "$1" | tail -1; }

status=0
summary=()
for t in $targets; do
	[ "$t" = fuzz_plan ] && seed fuzz_policy "$B/corpus/fuzz_policy"
	seed "$t" "$B/corpus/$t" "$B/corpus/fuzz_policy"
	log=$B/logs/$t.log
	before=$(ls "$B/crashes" | wc -l)
	echo "fuzz.sh: $t for ${secs}s (log: $log)"
	nice -n 10 timeout -k 10 $((secs + 300)) "$B/$t" \
		-max_total_time="$secs" "${common[@]}" "$(dict "$t")" -print_final_stats=1 \
		-artifact_prefix="$B/crashes/$t-" "$B/corpus/$t" >"$log" 2>&1
	rc=$?
	after=$(ls "$B/crashes" | wc -l)
	crashes=$((after - before))
	execs=$(field "$log" stat::number_of_executed_units)
	rate=$(field "$log" stat::average_exec_per_sec)
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
	if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
		crashes=1	# killed or died without an artifact: see the log
	fi
	[ "$crashes" -gt 0 ] && status=1
	summary+=("$(printf '%-12s %6ss %12s %9s %8s %7s %6s %7s' "$t" "$secs" \
		"${execs:-?}" "${rate:-?}" "$crashes" "${corp:-?}" "${cov:-?}" \
		"${ft:-?}")")
	if [ "$crashes" -gt 0 ]; then
		echo "fuzz.sh: $t: FOUND $crashes (rc $rc); inputs in $B/crashes/:" >&2
		grep -E 'ERROR|SUMMARY|fuzz_[a-z]+: ' "$log" | head -5 >&2
	fi
done

printf '%-12s %7s %12s %9s %8s %7s %6s %7s\n' target time execs exec/s \
	crashes corpus cov ft
printf '%s\n' "${summary[@]}"
exit $status
