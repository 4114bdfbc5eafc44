// Command atende is the whole product in one binary:
//
//	atende serve    REST API, realtime gateway, actors, channels and the web app on one port
//	atende migrate  apply the database migrations and exit
//	atende seed     create the demo tenant (idempotent) and exit
//	atende tenant   create, list, disable or enable tenants (tenant.go)
//	atende import   copy a whaticket database into a tenant (import.go)
//	atende version  print the version
//
// Configuration comes from flags and environment variables; see README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"atende/node"
)

// Set by the linker (see Makefile).
var (
	version = "6.0.2"
	commit  = "dev"
)

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "atende:", err)
		os.Exit(1)
	}
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		args = []string{"serve"}
	}
	cmd, rest := args[0], args[1:]
	// Every command stops at Ctrl-C or SIGTERM.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "atende %s (%s)\n", version, commit)
		return nil
	case "serve", "migrate":
	case "seed":
		return seedCmd(ctx, rest, getenv, stdout, stderr)
	case "tenant":
		return tenantCmd(ctx, rest, getenv, stdout, newLogger(node.Config{LogFormat: "json", LogLevel: "warn"}, stderr))
	case "import":
		return importCmd(ctx, rest, getenv, stdout, stderr, newLogger(node.Config{LogFormat: "json", LogLevel: "warn"}, stderr))
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, "usage: atende serve|migrate|seed|tenant|import|version [flags]; atende serve -h lists the flags")
		return nil
	default:
		return fmt.Errorf("unknown command %q (want serve, migrate, seed, tenant, import or version)", cmd)
	}
	cfg, err := parseConfig(rest, getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	log := newLogger(cfg, stderr)

	switch cmd {
	case "migrate":
		return node.Migrate(ctx, cfg, log)
	default:
		return serve(ctx, cfg, log)
	}
}

func newLogger(cfg node.Config, w io.Writer) zerolog.Logger {
	zerolog.TimeFieldFormat = time.RFC3339Nano
	level, err := zerolog.ParseLevel(cfg.LogLevel)
	if err != nil || cfg.LogLevel == "" {
		level = zerolog.InfoLevel
	}
	if cfg.LogFormat == "console" {
		// Colours only on a terminal: a log redirected to a file stays plain text.
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly, NoColor: !isTerminal(w)}
	}
	return zerolog.New(w).Level(level).With().Timestamp().Str("service", "atende").Logger()
}

// serve is `atende serve`: the node built from cfg, serving until ctx ends.
func serve(ctx context.Context, cfg node.Config, log zerolog.Logger) error {
	if err := ensureDevSecret(&cfg); err != nil {
		return err
	}
	cfg.Version = version
	n, err := node.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	return n.Run(ctx)
}

// isTerminal reports whether w is a character device (a terminal), the only place
// colour codes help.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
