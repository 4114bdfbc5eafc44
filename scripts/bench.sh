#!/usr/bin/env bash
# Runs the benchmarks of ../shared/BENCHMARKS.md and writes docs/benchmarks.md.
# Most benchmarks bound their own work (fixed operation counts) and run once
# (-benchtime=1x); the socket fan-out benchmarks scale with b.N and run for a while, and
# B6 times each query shape for 2 s on a database it seeds once.
#
#   BENCH_PKGS=regexp   only the Go packages whose import path matches (e.g. cmd/atende)
#   BENCH_RUN=regexp    only the benchmarks matching (go test -bench), default all
#   BENCH_COUNT=n       run each benchmark n times (one table row per run), default 1
#   BENCH_BROWSER=0     skip the browser benchmark (B8); its last report is kept
#
# Figures a run does not measure keep their section of docs/benchmarks.md, dated by
# the run that measured them. A benchmark that fails fails the whole run.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pkgs=$(go list ./... | grep -E "${BENCH_PKGS:-.}" | while read -r p; do
	dir=$(go list -f '{{.Dir}}' "$p")
	if grep -qs '^func Benchmark' "$dir"/*_test.go; then echo "$p"; fi
done)
for p in $pkgs; do
	echo "bench $p" >&2
	benchtime=1x
	timeout=20m
	case "$p" in
	*/transport/socket) benchtime=3s ;;
	*/persistence/readmodel) benchtime=2s ;; # B6: seeded once, each query shape timed for 2 s (real percentiles)
	*/cmd/atende) timeout=90m ;; # B1, B3, B7, B9 and B10 with S1 (a 1M-message shop loaded and measured) run as processes
	esac
	if ! go test -run '^$' -bench "${BENCH_RUN:-.}" -benchtime "$benchtime" -count "${BENCH_COUNT:-1}" -timeout "$timeout" "$p" | tee -a "$out"; then
		echo "bench $p failed" >&2
		exit 1
	fi
done
if [ "${BENCH_BROWSER:-1}" != 0 ] && [ -f web/e2e/bench.mjs ]; then
	# Writes web/e2e/bench-report.md only when it completes.
	(cd web && node e2e/bench.mjs) || { echo "browser benchmark failed" >&2; exit 1; }
fi
extra=""
if [ -f web/e2e/bench-report.md ]; then extra="-extra web/e2e/bench-report.md"; fi
go run ./cmd/benchreport -out docs/benchmarks.md $extra < "$out"
echo "wrote docs/benchmarks.md" >&2
