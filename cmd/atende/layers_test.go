package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The layers of ARCHITECTURE.md: engine imports nothing of ours; actors, persistence,
// transport and cluster import engine but never each other; node assembles and runs
// a server node from all of them (and the embedded web app and docs); only cmd/
// imports node, and cmd/ imports all.
// Test files are free to reach across (an HTTP test stands up a real database), and
// so are test-support packages (dbtest, channeltest, graphfake: a last path element
// ending in "test" or "fake"), which only test files and other such packages may
// import.
//
// goroutine (the one package that starts goroutines) imports nothing of ours, and every
// layer but the pure domain may import it.
var layerRules = map[string][]string{
	"engine":      {},
	"goroutine":   {},
	"actors":      {"engine", "goroutine"},
	"persistence": {"engine", "goroutine"},
	"transport":   {"engine", "goroutine"},
	"cluster":     {"engine", "actors", "goroutine"},
	"node":        {"engine", "goroutine", "actors", "persistence", "transport", "cluster", "web", "docs"},
	"web":         {},
}

// onlyCmdImports are the layers no package outside cmd/ may import (tests aside):
// node is what a command runs, never a part another layer builds on.
var onlyCmdImports = []string{"node"}

// forbiddenImports are finer rules inside a layer: a package under from may not import
// the package to (nor one under it). Channel adapters answer their routes through
// transport/jsonapi, never through the REST API's package.
var forbiddenImports = []struct{ from, to string }{
	{"atende/transport/channel/", "atende/transport/http"},
}

// goroutinePackage is the one package that may hold a `go` statement.
const goroutinePackage = "goroutine"

// layerViolations checks a `go list -f '{{.ImportPath}} {{join .Imports " "}}'`
// listing against the rules above; checked counts the packages the layer rules ruled.
func layerViolations(listing string) (violations []string, checked int) {
	for _, line := range strings.Split(strings.TrimSpace(listing), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := fields[0]
		for _, imp := range fields[1:] {
			if testSupport(imp) && !testSupport(pkg) {
				violations = append(violations, fmt.Sprintf("%s imports %s: only tests may import a test-support package", pkg, imp))
			}
			for _, f := range forbiddenImports {
				if strings.HasPrefix(pkg, f.from) && (imp == f.to || strings.HasPrefix(imp, f.to+"/")) {
					violations = append(violations, fmt.Sprintf("%s imports %s: no package under %s may", pkg, imp, f.from))
				}
			}
		}
		if testSupport(pkg) {
			continue
		}
		layer := topLayer(pkg)
		allowed, ruled := layerRules[layer]
		if !ruled {
			// A ruled layer imports only what its rule lists, which never holds these.
			for _, imp := range fields[1:] {
				if dep := topLayer(imp); strings.HasPrefix(imp, "atende/") && layer != "cmd" && slices.Contains(onlyCmdImports, dep) {
					violations = append(violations, fmt.Sprintf("%s imports %s: only cmd/ may import layer %s", pkg, imp, dep))
				}
			}
			continue
		}
		checked++
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, "atende/") {
				continue
			}
			dep := topLayer(imp)
			if dep != layer && !slices.Contains(allowed, dep) {
				violations = append(violations, fmt.Sprintf("%s imports %s: layer %s may import only %v", pkg, imp, layer, allowed))
			}
		}
	}
	return violations, checked
}

func TestLayerDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "atende/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	violations, checked := layerViolations(string(out))
	for _, v := range violations {
		t.Error(v)
	}
	if checked == 0 {
		t.Fatal("no packages checked")
	}
}

// TestLayerRulesCatchViolations feeds the checker a listing that breaks each rule.
func TestLayerRulesCatchViolations(t *testing.T) {
	for _, tt := range []struct{ name, line, want string }{
		{"engine imports persistence", "atende/engine atende/persistence/db", "layer engine may import only"},
		{"transport imports persistence", "atende/transport/http atende/engine atende/persistence/store", "layer transport may import only"},
		{"a channel adapter imports the REST API", "atende/transport/channel/meta atende/engine atende/transport/http", "no package under atende/transport/channel/"},
		{"a channel adapter imports under the REST API", "atende/transport/channel/waba atende/transport/http/token", "no package under atende/transport/channel/"},
		{"production code imports a fake", "atende/transport/channel/cloud atende/transport/channel/meta/graphfake", "only tests may import"},
		{"the goroutine package imports the domain", "atende/goroutine atende/engine", "layer goroutine may import only"},
		{"the domain imports the goroutine package", "atende/engine atende/goroutine", "layer engine may import only"},
		{"transport imports node", "atende/transport/http atende/engine atende/node", "layer transport may import only"},
		{"an unruled package imports node", "atende/docs atende/node", "only cmd/ may import layer node"},
		{"node imports cmd", "atende/node atende/engine atende/cmd/atende", "layer node may import only"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			violations, _ := layerViolations(tt.line)
			if len(violations) != 1 || !strings.Contains(violations[0], tt.want) {
				t.Errorf("violations = %q, want one with %q", violations, tt.want)
			}
		})
	}
	if v, _ := layerViolations("atende/transport/channel/meta atende/engine atende/transport/jsonapi"); len(v) != 0 {
		t.Errorf("the allowed imports of a channel adapter are refused: %q", v)
	}
	if v, _ := layerViolations("atende/cmd/atende atende/node atende/engine\natende/node atende/actors atende/persistence/db atende/transport/http atende/cluster atende/web atende/docs"); len(v) != 0 {
		t.Errorf("the allowed imports of cmd and node are refused: %q", v)
	}
}

// goStatements lists the `go` statements of the non-test .go files under root,
// outside the directory allowed (relative to root), third_party, testdata, web and
// hidden folders: every goroutine of ours starts through the goroutine package, which
// tracks it for shutdown or says why it need not.
func goStatements(root, allowed string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "third_party" || name == "web" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(rel) == filepath.FromSlash(allowed) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				pos := fset.Position(g.Pos())
				found = append(found, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), pos.Line))
			}
			return true
		})
		return nil
	})
	return found, err
}

func TestOnlyTheGoroutinePackageStartsGoroutines(t *testing.T) {
	found, err := goStatements(filepath.Join("..", ".."), goroutinePackage)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range found {
		t.Errorf("%s: a go statement outside %s (start it with goroutine.Group.Go or goroutine.Go)", at, goroutinePackage)
	}
}

// TestGoStatementCheckerCatchesOne runs the checker on testdata/gostmt, which holds a
// `go` statement in a production file, one in a test file (allowed) and one in the
// allowed package.
func TestGoStatementCheckerCatchesOne(t *testing.T) {
	found, err := goStatements(filepath.Join("testdata", "gostmt"), "allowed")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"bad/bad.go:6"}; !slices.Equal(found, want) {
		t.Errorf("found %q, want %q", found, want)
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
