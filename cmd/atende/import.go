package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/rs/zerolog"

	"atende/node"
	"atende/persistence/importwhaticket"
	"atende/persistence/journal"
)

// importUsage is the help of `atende import`.
const importUsage = `usage:
  atende import whaticket --from postgres://…|mysql://user:pw@host/db [--company ID | --company-name NAME]
      [--source NAME] [--batch N] [--workers N] [--media-url URL] [serve flags]
Copies a whaticket-community database into a tenant of the node's database (the serve
flags --database-url… say which). Without --company the tenant named --company-name
(default "Whaticket") is used, created when missing. Running it again adds nothing; an
interrupted run continues where it stopped. docs/import.md has the details.`

// importCmd runs `atende import whaticket …`: the import, then the read models built
// from what it wrote, with progress on stderr and a summary on stdout.
func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, log zerolog.Logger) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stdout, importUsage)
		return nil
	}
	if args[0] != "whaticket" {
		return fmt.Errorf("import: unknown source %q (want whaticket)", args[0])
	}
	fs := flag.NewFlagSet("import whaticket", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var ic importwhaticket.Config
	var company int64
	fs.StringVar(&ic.From, "from", "", "the whaticket database: postgres://… or mysql://user:pw@host/db")
	fs.Int64Var(&company, "company", 0, "the tenant to import into (default: the one named --company-name)")
	fs.StringVar(&ic.CompanyName, "company-name", importwhaticket.DefaultCompanyName, "the tenant's name when --company is not given")
	fs.StringVar(&ic.Source, "source", importwhaticket.DefaultSource, "a name for this whaticket installation")
	fs.IntVar(&ic.Batch, "batch", importwhaticket.DefaultBatch, "tickets decided and appended together")
	fs.IntVar(&ic.Workers, "workers", importwhaticket.DefaultWorkers, "appends of a batch in flight at once")
	fs.StringVar(&ic.MediaBaseURL, "media-url", "", "where whaticket's media files are served (its backend URL + /public)")
	cfg, err := parseConfigOn(fs, args[1:], getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, importUsage)
			return nil
		}
		return fmt.Errorf("import whaticket: %w", err)
	}
	if ic.From == "" {
		return errors.New("import whaticket: --from is required")
	}
	ic.CompanyID = company
	return importInto(ctx, cfg, ic, stdout, stderr, log)
}

// importInto runs the import ic into the node's database (cfg), then builds the
// read models from what it wrote: a summary on stdout, progress on stderr.
func importInto(ctx context.Context, cfg node.Config, ic importwhaticket.Config, stdout, stderr io.Writer, log zerolog.Logger) error {
	d, err := node.OpenDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer d.Close()
	// A larger group-commit batch than a serving node's: the import's appends are
	// whole tickets, tens of events each.
	j, err := journal.New(d, journal.Config{MaxBatch: 8192, Logger: log})
	if err != nil {
		return err
	}
	defer j.Close()
	ic.DB, ic.Journal, ic.Log = d, j, log
	ic.Progress, ic.Terminal = stderr, isTerminal(stderr)
	rep, err := importwhaticket.Run(ctx, ic)
	fmt.Fprint(stdout, rep.Summary())
	if err != nil {
		return fmt.Errorf("%w (run the same command again to continue)", err)
	}
	start := time.Now()
	fmt.Fprintln(stderr, "building the read models…")
	if err := node.CatchUpReadModels(ctx, d, j, log); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "read models built in %s\n", time.Since(start).Round(time.Millisecond))
	// What was imported is history: its streams are compacted now rather than a day
	// later (docs/import.md).
	st, err := node.CompactJournal(ctx, d, j, rep.CompanyID, -1, log)
	if err != nil {
		return err
	}
	if st.Streams > 0 {
		fmt.Fprintf(stdout, "journal compacted: %d streams, %d events\n", st.Streams, st.Events)
		if err := j.Reclaim(ctx); err != nil {
			return err
		}
	}
	// The read models' tables have just grown by the whole shop: their statistics
	// are brought up to date now, not whenever autovacuum (if it runs at all) gets
	// there. Without them PostgreSQL plans the lists and the search as for empty
	// tables: the open tab took 54 ms and a search 1.6 s at 1M messages.
	return d.Analyze(ctx)
}
