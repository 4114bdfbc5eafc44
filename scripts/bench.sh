#!/usr/bin/env bash
# Runs the benchmarks of ../shared/BENCHMARKS.md and writes docs/benchmarks.md.
# Each benchmark bounds its own work (fixed operation counts), so -benchtime=1x.
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
	go test -run '^$' -bench . -benchtime 1x -timeout 20m "$p" | tee -a "$out"
done
extra=""
if [ -f web/e2e/bench-report.md ]; then extra="-extra web/e2e/bench-report.md"; fi
go run ./cmd/benchreport -out docs/benchmarks.md $extra < "$out"
echo "wrote docs/benchmarks.md" >&2
