#!/usr/bin/env bash
# Runs the benchmarks of ../shared/BENCHMARKS.md and writes docs/benchmarks.md.
# Most benchmarks bound their own work (fixed operation counts) and run once
# (-benchtime=1x); the socket fan-out benchmarks scale with b.N and run for a while.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pkgs=$(go list ./... | while read -r p; do
	dir=$(go list -f '{{.Dir}}' "$p")
	if grep -qs '^func Benchmark' "$dir"/*_test.go; then echo "$p"; fi
done)
for p in $pkgs; do
	echo "bench $p" >&2
	benchtime=1x
	case "$p" in */transport/socket) benchtime=3s ;; esac
	go test -run '^$' -bench . -benchtime "$benchtime" -timeout 20m "$p" | tee -a "$out"
done
extra=""
if [ -f web/e2e/bench.mjs ] && [ -x bin/atende ]; then
	(cd web && node e2e/bench.mjs) || echo "browser benchmark failed" >&2
fi
if [ -f web/e2e/bench-report.md ]; then extra="-extra web/e2e/bench-report.md"; fi
go run ./cmd/benchreport -out docs/benchmarks.md $extra < "$out"
echo "wrote docs/benchmarks.md" >&2
