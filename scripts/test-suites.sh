#!/usr/bin/env bash
# Runs the given make targets (the suites of `make test`) one after another, each to
# the end even when an earlier one failed, and prints one line per suite at the end:
# ok or FAILED, how long it took, and what it counted (Go packages, web tests, browser
# flows). Exits 1 when any suite failed. Usage: scripts/test-suites.sh lint test-go …
set -uo pipefail

make_cmd=${MAKE:-make}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# counts summarises a suite's output: what passed and what failed, as its tool says.
counts() {
	local suite=$1 log=$2
	case $suite in
	test-go)
		# go test: "ok  <package> 1.2s" or "FAIL <package> 1.2s" (or "[build failed]")
		local ok fail
		ok=$(grep -cE '^ok\s' "$log")
		fail=$(grep -cE '^FAIL\s+\S+\s' "$log")
		printf '%s packages ok, %s failed' "$ok" "$fail"
		grep -E '^FAIL\s+\S+\s' "$log" | awk '{print $2}' | head -5 | tr '\n' ' ' | sed 's/^./: &/'
		;;
	test-web)
		# vitest: "Tests  312 passed (312)" or "Tests  1 failed | 311 passed (312)"
		sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^\s*Tests\s' | tail -1 | sed 's/^ *Tests */vitest: /'
		;;
	test-e2e)
		# e2e/run.mjs closes with "N passed, M failed"
		grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 | sed 's/^/browser flows: /'
		;;
	esac
}

summary=()
failed=0
for suite in "$@"; do
	log="$logs/$suite.log"
	start=$(date +%s)
	"$make_cmd" --no-print-directory "$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	took=$(($(date +%s) - start))
	status=ok
	if [ "$rc" -ne 0 ]; then
		status=FAILED
		failed=1
	fi
	summary+=("$(printf '%-10s %-6s %5ss  %s' "$suite" "$status" "$took" "$(counts "$suite" "$log")")")
done

echo
echo "make test summary:"
for line in "${summary[@]}"; do
	echo "  $line"
done
if [ "$failed" -ne 0 ]; then
	echo "make test: FAILED"
	exit 1
fi
echo "make test: all suites passed"
