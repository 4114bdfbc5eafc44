package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// README.md's configuration table is how a newcomer learns the settings: every flag
// and environment variable parseConfig reads must be in it, and nothing else. The flags
// and variables are read from config.go's source (the fs.…Var calls and the env and
// getenv keys), the table from the README's "## Configuration" section.
func TestReadmeConfigurationTableMatchesTheFlags(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "config.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	flags, envs := map[string]bool{}, map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		str := func(i int) string {
			if i >= len(call.Args) {
				return ""
			}
			lit, ok := call.Args[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return ""
			}
			s, _ := strconv.Unquote(lit.Value)
			return s
		}
		switch fn := call.Fun.(type) {
		case *ast.SelectorExpr:
			if id, ok := fn.X.(*ast.Ident); ok && id.Name == "fs" && strings.HasSuffix(fn.Sel.Name, "Var") {
				flags[str(1)] = true
			}
		case *ast.Ident:
			if fn.Name == "env" || fn.Name == "getenv" {
				envs[str(0)] = true
			}
		}
		return true
	})
	delete(envs, "")
	if len(flags) < 30 || len(envs) < 30 {
		t.Fatalf("read %d flags and %d variables from config.go: the parser missed them", len(flags), len(envs))
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	if i := strings.Index(section, "\n## Configuration"); i >= 0 {
		section = section[i+1:]
	} else {
		t.Fatal("README.md has no Configuration section")
	}
	if i := strings.Index(section[3:], "\n## "); i >= 0 {
		section = section[:i+3]
	}
	tableFlags, tableEnvs := map[string]bool{}, map[string]bool{}
	flagRe, envRe := regexp.MustCompile("`--([a-z0-9-]+)`"), regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(line, "| `") {
			continue
		}
		for _, m := range envRe.FindAllStringSubmatch(cells[1], -1) {
			tableEnvs[m[1]] = true
		}
		for _, m := range flagRe.FindAllStringSubmatch(cells[2], -1) {
			tableFlags[m[1]] = true
		}
	}
	// The tests-only flags are named in the paragraph under the table instead.
	for _, m := range flagRe.FindAllStringSubmatch(section, -1) {
		if strings.HasPrefix(m[1], "whatsapp-") {
			tableFlags[m[1]] = true
		}
	}
	diff := func(what string, code, table map[string]bool) {
		var missing, extra []string
		for k := range code {
			if !table[k] {
				missing = append(missing, k)
			}
		}
		for k := range table {
			if !code[k] {
				extra = append(extra, k)
			}
		}
		slices.Sort(missing)
		slices.Sort(extra)
		if len(missing) > 0 {
			t.Errorf("README.md's configuration table lacks the %s %v", what, missing)
		}
		if len(extra) > 0 {
			t.Errorf("README.md's configuration table lists %s config.go does not read: %v", what, extra)
		}
	}
	diff("flags", flags, tableFlags)
	diff("environment variables", envs, tableEnvs)
}
