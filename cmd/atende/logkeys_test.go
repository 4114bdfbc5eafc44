package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// zerologKeyMethods are the zerolog Event and Context methods whose first argument
// is the key they write; Err writes zerolog's "error" key.
var zerologKeyMethods = map[string]bool{
	"Str": true, "Strs": true, "Stringer": true, "Stringers": true, "Bytes": true, "Hex": true, "RawJSON": true,
	"Int": true, "Ints": true, "Int8": true, "Int16": true, "Int32": true, "Int64": true, "Ints64": true,
	"Uint": true, "Uint8": true, "Uint16": true, "Uint32": true, "Uint64": true, "Uints64": true,
	"Float32": true, "Float64": true, "Floats64": true, "Bool": true, "Bools": true,
	"Dur": true, "Durs": true, "TimeDiff": true, "Time": true, "Times": true,
	"Any": true, "Interface": true, "Dict": true, "Array": true, "Object": true, "EmbedObject": false,
	"AnErr": true, "Errs": true, "IPAddr": true, "IPPrefix": true, "MACAddr": true, "Type": true,
}

// logKeys walks one chain of calls (a.Str("k", …).Int("j", …).Msg(…)) from its end
// and answers the literal keys it writes, in order.
func logKeys(e ast.Expr) []string {
	var keys []string
	for {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			break
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			break
		}
		switch name := sel.Sel.Name; {
		case name == "Err" && len(call.Args) == 1:
			keys = append(keys, "error")
		case zerologKeyMethods[name] && len(call.Args) >= 2:
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if k, err := strconv.Unquote(lit.Value); err == nil {
					keys = append(keys, k)
				}
			}
		case name == "With" || name == "Logger":
			// The end of an event chain or the start of a context chain: a
			// context's keys are checked as their own chain.
			return keys
		}
		e = sel.X
	}
	return keys
}

// TestLogLinesHaveUniqueKeys is a vet over our code: no zerolog chain writes one
// key twice (JSON with a repeated key is read differently by every log collector).
// Chains end in Msg, Msgf, Send (an event) or Logger (a child logger's context).
// The protoactor records forwarded by actors/slog.go are checked by its own test.
func TestLogLinesHaveUniqueKeys(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	chains := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "third_party", "node_modules", "web", ".git", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "Msg", "Msgf", "Send", "Logger":
			default:
				return true
			}
			keys := logKeys(sel.X)
			if len(keys) == 0 {
				return true
			}
			chains++
			seen := map[string]bool{}
			for _, k := range keys {
				if seen[k] {
					t.Errorf("%s: log key %q written twice in one line", fset.Position(call.Pos()), k)
				}
				seen[k] = true
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if chains < 100 {
		t.Fatalf("only %d log chains found: the walk missed the code", chains)
	}
}

// The vet finds what it is meant to find.
func TestLogKeysFindsARepeat(t *testing.T) {
	e, err := parser.ParseExpr(`log.Info().Str("tenant", a).Int64("user_id", b).Err(err).Int64("tenant", c)`)
	if err != nil {
		t.Fatal(err)
	}
	keys := logKeys(e)
	if strings.Join(keys, ",") != "tenant,error,user_id,tenant" {
		t.Fatalf("keys %v", keys)
	}
}
