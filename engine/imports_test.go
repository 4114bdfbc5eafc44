package engine

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEngineImportsNothingOfOurs keeps the layering of ARCHITECTURE.md: engine imports
// no package of this module and none that does I/O on its own.
func TestEngineImportsNothingOfOurs(t *testing.T) {
	forbidden := map[string]bool{"os": true, "os/exec": true, "net": true, "database/sql": true, "io/ioutil": true, "syscall": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "atende" || strings.HasPrefix(path, "atende/") || forbidden[path] {
				t.Errorf("%s imports %q", name, path)
			}
		}
	}
}
