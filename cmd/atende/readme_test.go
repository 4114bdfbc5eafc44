package main

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// README.md's configuration table is how a newcomer learns the settings: every flag
// and environment variable parseConfig reads must be in it, and nothing else. The flags
// and variables are read from config.go's source (the fs.…Var calls and the env and
// getenv keys), the table from the README's "## Configuration" section.
func TestReadmeConfigurationTableMatchesTheFlags(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	envs := map[string]bool{}
	if _, err := parseConfigOn(fs, nil, func(key string) string { envs[key] = true; return "" }); err != nil {
		t.Fatal(err)
	}
	flags := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { flags[f.Name] = true })
	if len(flags) < 30 || len(envs) < 30 {
		t.Fatalf("parseConfig declared %d flags and read %d variables: too few to be all of them", len(flags), len(envs))
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
