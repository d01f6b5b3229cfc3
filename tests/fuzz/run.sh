#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the fuzz harnesses built in build/fuzz.
#   tests/fuzz/run.sh SECONDS NAME...   each for SECONDS from a corpus that
#                                       persists in build/fuzz/corpus/NAME
#   tests/fuzz/run.sh smoke NAME...     the seeds and 1000 mutations each
# Prints executions per harness; a crash leaves build/fuzz/crash-NAME-* and fails.
set -u
cd "$(dirname "$0")/../.." || exit 1
FZ=build/fuzz
mode=$1
shift
fail=0 total=0
for n in "$@"; do
	seeds=$FZ/seeds/$n
	rm -rf "$seeds"
	tests/fuzz/seeds.sh "$n" "$seeds"
	if [ "$mode" = smoke ]; then
		set -- -runs=1000 -seed=1 "$seeds"
	else
		mkdir -p "$FZ/corpus/$n"
		set -- -max_total_time="$mode" "$FZ/corpus/$n" "$seeds"
	fi
	log=$FZ/$n.log
	if "$FZ/fuzz_$n" -artifact_prefix="$FZ/crash-$n-" -print_final_stats=1 \
		-max_len=65536 "$@" > "$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
		printf '%-10s %10s executions  %s\n' "$n" "$runs" "$cov"
		total=$((total + ${runs:-0}))
	else
		printf '%-10s FAILED, see %s\n' "$n" "$log"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5
		fail=1
	fi
done
printf 'fuzz: %d executions in all\n' "$total"
exit $fail
