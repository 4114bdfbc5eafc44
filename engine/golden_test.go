package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// updateGolden rewrites golden files instead of comparing with them:
// go test ./engine/ -run 'Golden|JSON' -update
var updateGolden = flag.Bool("update", false, "rewrite golden files (engine/testdata, web/src/app/permissions.json, web/src/app/golden, web/src/i18n/errorCodes.json)")

// checkGolden compares got with the file at path, or rewrites the file under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("mkdir for %s: %v", path, err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("write %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s (run with -update to create it): %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale (run go test ./engine/ -update):\n got: %s\nwant: %s", path, got, want)
	}
}

func indentJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return append(b, '\n')
}

// TestPermissionsJSON keeps the web app's copy of the permission table equal to the
// Go table: profile -> sorted actions.
func TestPermissionsJSON(t *testing.T) {
	checkGolden(t, filepath.Join("..", "web", "src", "app", "permissions.json"), indentJSON(t, PermissionTable()))
}

// TestErrorCodesJSON keeps the web app's list of error codes equal to the catalogue,
// so its translations can be checked to cover every code.
func TestErrorCodesJSON(t *testing.T) {
	checkGolden(t, filepath.Join("..", "web", "src", "i18n", "errorCodes.json"), indentJSON(t, Codes()))
}

// CheckGolden and IndentJSON are checkGolden and indentJSON for the golden tests of
// package engine_test (those that need engine/visibilitytest, which imports engine).
var (
	CheckGolden = checkGolden
	IndentJSON  = indentJSON
)
