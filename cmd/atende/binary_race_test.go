package main

import (
	"debug/buildinfo"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Under the race detector the binary the process tests start is built with -race
// as well; without it, it is not (a -race build is slower and bigger).
func TestClusterBinaryFollowsTheRaceDetector(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	info, err := buildinfo.ReadFile(clusterBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	race := "false"
	for _, s := range info.Settings {
		if s.Key == "-race" {
			race = s.Value
		}
	}
	if want := map[bool]string{true: "true", false: "false"}[raceEnabled]; race != want {
		t.Fatalf("binary built with -race=%s, want %s (this test binary: race %v)", race, want, raceEnabled)
	}
}

// raceReports finds the race detector's reports in a process's output and quotes
// the first one; output without one passes.
func TestRaceReportsInProcessOutput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	clean := write("clean.log", `{"level":"warn","message":"DATA is fine"}`+"\n")
	if err := raceReports(clean); err != nil {
		t.Fatalf("clean output: %v", err)
	}
	report := "==================\n" + raceMark + "\nWrite at 0x00c000 by goroutine 7:\n  main.f()\n" +
		"==================\n"
	racy := write("racy.log", "{\"level\":\"info\"}\n"+report+"{\"level\":\"info\"}\n"+report)
	err := raceReports(racy)
	if err == nil {
		t.Fatal("two race reports not found")
	}
	if msg := err.Error(); !strings.Contains(msg, "2 data race report(s)") || !strings.Contains(msg, "main.f()") ||
		strings.Count(msg, raceMark) != 1 {
		t.Fatalf("error = %q; want the count and the first report only", msg)
	}
	if err := raceReports(filepath.Join(dir, "missing.log")); err == nil {
		t.Fatal("a missing output file passed")
	}
}
