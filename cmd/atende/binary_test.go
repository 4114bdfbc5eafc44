package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// buildOnce holds the atende binary the process tests start, compiled once per test
// binary run.
var buildOnce struct {
	sync.Once
	path string
	err  error
}

// clusterBinary compiles atende (once) and returns its path, for tests and
// benchmarks alike. When the tests run under the race detector (go test -race, as
// `make test` does) the binary is built with -race too, so the processes they start
// — several nodes of a cluster talking to each other — are checked as well; each
// test fails on a race report in a process's output (watchRaces).
func clusterBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "atende-bin-")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.path = filepath.Join(dir, "atende")
		args := []string{"build", "-o", buildOnce.path}
		if raceEnabled {
			args = append(args, "-race")
		}
		if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
			buildOnce.err = fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, out)
		}
	})
	if buildOnce.err != nil {
		t.Fatal(buildOnce.err)
	}
	return buildOnce.path
}

// binary is clusterBinary for tests.
func binary(t *testing.T) string { t.Helper(); return clusterBinary(t) }

// raceMark starts every report of the race detector.
const raceMark = "WARNING: DATA RACE"

// watchRaces fails t, at its end, if the output of a process it started (written to
// logPath) holds a race report. Register it before the cleanup that stops the
// process, so that it runs after it and sees the reports of the shutdown too.
func watchRaces(t testing.TB, name, logPath string) {
	t.Cleanup(func() {
		if err := raceReports(logPath); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	})
}

// raceReports returns an error quoting the first race report in the file at path
// (and counting them), nil when there is none.
func raceReports(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the process output: %w", err)
	}
	out := string(b)
	n := strings.Count(out, raceMark)
	if n == 0 {
		return nil
	}
	first := out[strings.Index(out, raceMark):]
	if end := strings.Index(first[len(raceMark):], "=================="); end >= 0 {
		first = first[:len(raceMark)+end]
	}
	return fmt.Errorf("%d data race report(s) in its output; the first:\n%s", n, first)
}
