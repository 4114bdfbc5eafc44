package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"atende/node"
	"atende/persistence/importwhaticket"
)

// seedUsage is the help of `atende seed`.
const seedUsage = `usage:
  atende seed [--seed-conversations] [--volume MESSAGES] [serve flags]
Creates the demo tenant (with --seed-conversations its sample conversations) without
serving. With --volume it also builds the tenant "Volume": a whaticket shop of that many
messages (ten a ticket, one ticket a contact: --volume 1000000 makes 100,000 contacts
and tickets), synthesized and brought in through ` + "`atende import whaticket`" + `, so
every ticket is journal events and read models as the product writes them. Its admin
logs in as ` + importwhaticket.VolumeAdmin + ` / ` + importwhaticket.VolumePassword + `. Running it again adds nothing.
Refused in production: the logins are well known.`

// seedCmd is `atende seed`: the demo tenant and, with --volume, the volume tenant.
func seedCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	volume := fs.Int("volume", 0, "messages of the volume tenant (0: none)")
	cfg, err := parseConfigOn(fs, args, getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, seedUsage)
			return nil
		}
		return fmt.Errorf("seed: %w", err)
	}
	if *volume < 0 {
		return fmt.Errorf("seed: --volume %d: want a number of messages", *volume)
	}
	log := newLogger(cfg, stderr)
	cfg.SeedDemo = true
	// Refused in production, the volume tenant's well-known logins with the demo's.
	if err := node.Seed(ctx, cfg, log); err != nil {
		return err
	}
	if *volume == 0 {
		return nil
	}
	v := importwhaticket.VolumeOf(*volume)
	dir, err := os.MkdirTemp("", "atende-volume-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src := "sqlite:" + filepath.Join(dir, "whaticket.db")
	start := time.Now()
	fmt.Fprintf(stderr, "synthesizing a whaticket shop of %d contacts, %d tickets, %d messages…\n", v.Contacts, v.Tickets, v.Messages())
	if err := importwhaticket.Synthesize(ctx, src, v, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "whaticket shop synthesized in %s\n", time.Since(start).Round(time.Millisecond))
	ic := importwhaticket.Config{From: src, CompanyName: "Volume", Source: "volume"}
	if err := importInto(ctx, cfg, ic, stdout, stderr, log); err != nil {
		return fmt.Errorf("seed --volume: %w", err)
	}
	fmt.Fprintf(stdout, "volume tenant ready in %s: log in as %s / %s\n", time.Since(start).Round(time.Millisecond),
		importwhaticket.VolumeAdmin, importwhaticket.VolumePassword)
	return nil
}
