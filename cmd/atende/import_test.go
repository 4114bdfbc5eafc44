package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/importwhaticket"
	"atende/persistence/importwhaticket/whaticketdbtest"
)

// `atende import whaticket` copies a whaticket database into a tenant and builds its
// read models; the node then serves it: whaticket's users log in with their
// passwords and see the imported tickets and messages. A second run adds nothing.
//
// On PostgreSQL the import then compacts the tenant's streams (they are history), and
// the node serves them from the archive: an imported open ticket is closed by the
// admin, its actor rebuilt from archived events and its next version appended.
func TestImportWhaticketCommand(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) { testImportWhaticketCommand(t, dialect) })
	}
}

func testImportWhaticketCommand(t *testing.T, dialect db.Dialect) {
	src := dbtest.URL(t, db.Postgres)
	shop := whaticketdbtest.Build(t, src, 30)
	target := dbtest.URL(t, dialect)
	getenv := func(k string) string { return map[string]string{"DATABASE_URL": target}[k] }
	importOnce := func() string {
		t.Helper()
		var out, errs bytes.Buffer
		if err := run([]string{"import", "whaticket", "--from", src, "--company-name", "Loja do Zé", "--batch", "8"}, getenv, &out, &errs); err != nil {
			t.Fatalf("import: %v\n%s\n%s", err, out.String(), errs.String())
		}
		if !strings.Contains(errs.String(), "messages") {
			t.Errorf("no progress on stderr: %q", errs.String())
		}
		return out.String()
	}
	out := importOnce()
	if !strings.Contains(out, "read models built") || !strings.Contains(out, fmt.Sprintf("%-14s %8d new", "ticket", shop.WantTickets)) {
		t.Fatalf("summary:\n%s", out)
	}
	again := importOnce()
	if !strings.Contains(again, "(0 journal events)") || !strings.Contains(again, fmt.Sprintf("%-14s %8d new  %8d already imported", "ticket", 0, shop.WantTickets)) {
		t.Fatalf("second run:\n%s", again)
	}

	ta := startApp(t, testConfig(t, target))
	defer ta.stop()
	for email, pw := range shop.Users {
		login(t, ta.base, email, pw)
	}
	admin := login(t, ta.base, "admin@whaticket.com", shop.Users["admin@whaticket.com"])
	total, messages := 0, 0
	for _, status := range []string{"open", "pending", "closed"} {
		var page struct {
			Tickets []engine.Ticket `json:"tickets"`
			Count   int             `json:"count"`
		}
		admin.call("GET", "/tickets?status="+status+"&showAll=true&pageNumber=1", nil, http.StatusOK, &page)
		if page.Count == 0 {
			t.Errorf("no %s ticket listed", status)
		}
		total += page.Count
		if len(page.Tickets) > 0 {
			var msgs struct {
				Messages []engine.Message `json:"messages"`
			}
			admin.call("GET", fmt.Sprintf("/messages/%d", page.Tickets[0].ID), nil, http.StatusOK, &msgs)
			messages += len(msgs.Messages)
		}
	}
	if total != shop.WantTickets {
		t.Errorf("the lists show %d tickets, want %d", total, shop.WantTickets)
	}
	if messages == 0 {
		t.Error("the imported tickets show no messages")
	}
	if dialect != db.Postgres {
		return
	}
	if !strings.Contains(out, "journal compacted") {
		t.Errorf("the import compacted nothing:\n%s", out)
	}
	var open struct {
		Tickets []engine.Ticket `json:"tickets"`
	}
	admin.call("GET", "/tickets?status=open&showAll=true&pageNumber=1", nil, http.StatusOK, &open)
	if len(open.Tickets) == 0 {
		t.Fatal("no open imported ticket")
	}
	id := open.Tickets[0].ID
	admin.call("PUT", fmt.Sprintf("/tickets/%d", id), map[string]any{"status": "closed"}, http.StatusOK, nil)
	var closed engine.Ticket
	admin.call("GET", fmt.Sprintf("/tickets/%d", id), nil, http.StatusOK, &closed)
	if closed.Status != "closed" {
		t.Errorf("archived ticket %d after closing: status %q", id, closed.Status)
	}
}

func TestImportCommandRefusesBadInput(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "zendesk"}, "unknown source"},
		{[]string{"import", "whaticket"}, "--from is required"},
		{[]string{"import", "whaticket", "--from", "oracle://x/y", "--database-url", "sqlite:" + t.TempDir() + "/a.db"}, "unsupported scheme"},
	} {
		var out, errs bytes.Buffer
		if err := run(tt.args, getenv, &out, &errs); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want %q", tt.args, err, tt.want)
		}
	}
}

// `atende seed --volume N` builds the demo tenant and the volume tenant of N
// messages through the importer; a second run adds nothing, and the node serves the
// volume tenant's tickets to its admin. Bad values are refused.
func TestSeedVolumeCommand(t *testing.T) {
	target := dbtest.URL(t, db.SQLite)
	getenv := func(k string) string {
		return map[string]string{"DATABASE_URL": target, "DATA_DIR": t.TempDir(), "LOG_LEVEL": "error"}[k]
	}
	seedOnce := func() string {
		t.Helper()
		var out, errs bytes.Buffer
		if err := run([]string{"seed", "--volume", "600"}, getenv, &out, &errs); err != nil {
			t.Fatalf("seed --volume: %v\n%s\n%s", err, out.String(), errs.String())
		}
		return out.String()
	}
	out := seedOnce()
	for _, want := range []string{fmt.Sprintf("%-14s %8d new", "ticket", 60), fmt.Sprintf("%-14s %8d new", "message", 600),
		"log in as " + importwhaticket.VolumeAdmin} {
		if !strings.Contains(out, want) {
			t.Fatalf("summary lacks %q:\n%s", want, out)
		}
	}
	if again := seedOnce(); !strings.Contains(again, "(0 journal events)") {
		t.Fatalf("second run:\n%s", again)
	}
	for _, bad := range [][]string{{"seed", "--volume", "-5"}, {"seed", "--volume", "many"}} {
		if err := run(bad, getenv, io.Discard, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	prod := func(k string) string {
		switch k {
		case "ATENDE_ENV":
			return "production"
		case "JWT_SECRET":
			return "a7f3c9e1b5d8f2a4c6e0b9d3f7a1c5e8"
		}
		return getenv(k)
	}
	if err := run([]string{"seed", "--volume", "600"}, prod, io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "refused in production") {
		t.Errorf("seed --volume in production: %v", err)
	}

	ta := startApp(t, testConfig(t, target))
	defer ta.stop()
	admin := login(t, ta.base, importwhaticket.VolumeAdmin, importwhaticket.VolumePassword)
	total := 0
	for _, status := range []string{"open", "pending", "closed"} {
		var page struct {
			Count int `json:"count"`
		}
		admin.call("GET", "/tickets?status="+status+"&showAll=true", nil, http.StatusOK, &page)
		total += page.Count
	}
	if total != 60 {
		t.Errorf("the volume admin sees %d tickets, want 60", total)
	}
	login(t, ta.base, "admin@atende.local", "admin123") // the demo tenant is there too
}
