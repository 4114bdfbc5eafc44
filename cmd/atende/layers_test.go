package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The layers of ARCHITECTURE.md: engine imports nothing of ours; actors, persistence,
// transport and cluster import engine but never each other; only cmd/ imports all.
// Test files are free to reach across (an HTTP test stands up a real database), and
// so are test-support packages (dbtest, channeltest, graphfake: a last path element
// ending in "test" or "fake"), which only test files and other such packages may
// import.
var layerRules = map[string][]string{
	"engine":      {},
	"actors":      {"engine"},
	"persistence": {"engine"},
	"transport":   {"engine"},
	"cluster":     {"engine", "actors"},
	"web":         {},
}

func TestLayerDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "atende/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := fields[0]
		for _, imp := range fields[1:] {
			if testSupport(imp) && !testSupport(pkg) {
				t.Errorf("%s imports %s: only tests may import a test-support package", pkg, imp)
			}
		}
		if testSupport(pkg) {
			continue
		}
		layer := topLayer(pkg)
		allowed, ruled := layerRules[layer]
		if !ruled {
			continue
		}
		checked++
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, "atende/") {
				continue
			}
			dep := topLayer(imp)
			if dep == layer {
				continue
			}
			ok := false
			for _, a := range allowed {
				ok = ok || a == dep
			}
			if !ok {
				t.Errorf("%s imports %s: layer %s may import only %v", pkg, imp, layer, allowed)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no packages checked")
	}
}

func testSupport(pkg string) bool {
	last := pkg[strings.LastIndex(pkg, "/")+1:]
	return strings.HasPrefix(pkg, "atende/") && (strings.HasSuffix(last, "test") || strings.HasSuffix(last, "fake"))
}

func topLayer(pkg string) string {
	rest := strings.TrimPrefix(pkg, "atende/")
	top, _, _ := strings.Cut(rest, "/")
	return top
}
