package importwhaticket_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/crypto/bcrypt"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/importwhaticket"
	"atende/persistence/importwhaticket/whaticketdbtest"
	"atende/persistence/journal"
	"atende/persistence/projection"
	"atende/persistence/readmodel"
	"atende/persistence/store"
)

// failingJournal fails the append after the first `after` ones; the failing one
// writes the first half of its events first, as a crash between two appends of a
// long ticket would leave it.
type failingJournal struct {
	engine.Journal
	after int64
	n     atomic.Int64
}

var errInjected = errors.New("injected fault")

// readCounter counts the streams read: a resumed run folds a claimed ticket that is
// not done from its stream, and reads nothing of a done one.
type readCounter struct {
	engine.Journal
	reads atomic.Int64
}

func (r *readCounter) ReadStream(ctx context.Context, stream string, fromVersion int64, limit int) ([]engine.RecordedEvent, error) {
	r.reads.Add(1)
	return r.Journal.ReadStream(ctx, stream, fromVersion, limit)
}

func (f *failingJournal) Append(ctx context.Context, company engine.ID, stream string, expected int64, evs ...engine.EventData) (engine.AppendResult, error) {
	if f.n.Add(1) <= f.after {
		return f.Journal.Append(ctx, company, stream, expected, evs...)
	}
	if half := len(evs) / 2; half > 0 && f.n.Load() == f.after+1 {
		if _, err := f.Journal.Append(ctx, company, stream, expected, evs[:half]...); err != nil {
			return engine.AppendResult{}, err
		}
	}
	return engine.AppendResult{}, errInjected
}

func count(t *testing.T, d *db.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := d.SQL.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// buildReadModels runs the read-model projection until it has every event.
func buildReadModels(t *testing.T, d *db.DB, j *journal.Store) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	r, err := projection.New(d, j, projection.Config{Logger: zerolog.Nop()}, readmodel.NewProjection(zerolog.Nop()))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head, err := j.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitFor(ctx, head); err != nil {
		t.Fatalf("read models: %v", err)
	}
}

// An interrupted import continues where it stopped and ends with exactly the
// source's tickets and messages (less the hostile rows, counted); a third run adds
// nothing. Users log in with their whaticket passwords.
func TestImportInterruptedResumesAndRerunAddsNothing(t *testing.T) {
	srcURL := dbtest.URL(t, db.Postgres)
	want := whaticketdbtest.Build(t, srcURL, 60)
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		j, err := journal.New(d, journal.Config{MaxBatch: 4096})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		var progress bytes.Buffer
		cfg := importwhaticket.Config{From: srcURL, DB: d, Batch: 7, Workers: 4, Progress: &progress,
			MediaBaseURL: "https://wt.example.com/public"}

		// 1. Interrupted: the journal fails on its 20th append.
		cfg.Journal = &failingJournal{Journal: j, after: 19}
		if _, err := importwhaticket.Run(ctx, cfg); !errors.Is(err, errInjected) {
			t.Fatalf("interrupted run: %v, want the injected fault", err)
		}
		partial := count(t, d, `SELECT COUNT(DISTINCT stream_id) FROM events WHERE stream_id LIKE 'ticket/%'`)
		if partial == 0 || partial >= want.WantTickets {
			t.Fatalf("after the fault %d ticket streams, want some of %d", partial, want.WantTickets)
		}
		// The batch the fault stopped is claimed and not done: the progress mark is
		// below its tickets.
		through := count(t, d, `SELECT COALESCE(MAX(tickets_done_through), 0) FROM import_progress`)
		if got := count(t, d, `SELECT COUNT(*) FROM import_map WHERE kind = 'ticket' AND CAST(source_id AS BIGINT) > $1`, through); got == 0 {
			t.Errorf("after the fault no claimed ticket is above the progress mark %d", through)
		}

		// 2. Resumed: finishes.
		cfg.Journal = j
		rep, err := importwhaticket.Run(ctx, cfg)
		if err != nil {
			t.Fatalf("resumed run: %v", err)
		}
		t.Logf("resumed:\n%s", rep.Summary())
		// Hostile rows are skipped and counted on every run (nothing of them is
		// written, so nothing marks them done).
		for reason, n := range map[string]int{"contact: invalid number": 1, "ticket: its contact was not imported": 2,
			"message: its ticket was skipped": 10, "user: ERR_VALIDATION (email: Invalid email, name: Too Short!)": 1} {
			if rep.Skipped[reason] != n {
				t.Errorf("skipped %q: %d, want %d (%v)", reason, rep.Skipped[reason], n, rep.Skipped)
			}
		}
		buildReadModels(t, d, j)
		company := rep.CompanyID
		if got := count(t, d, `SELECT COUNT(*) FROM tickets WHERE company_id = $1`, company); got != want.WantTickets {
			t.Errorf("tickets read model has %d, want %d", got, want.WantTickets)
		}
		if got := count(t, d, `SELECT COUNT(*) FROM messages WHERE company_id = $1`, company); got != want.WantMessages {
			t.Errorf("messages read model has %d, want %d", got, want.WantMessages)
		}
		if got := count(t, d, `SELECT COUNT(*) FROM contacts WHERE company_id = $1`, company); got != want.WantContacts {
			t.Errorf("contacts: %d, want %d", got, want.WantContacts)
		}
		for status, n := range map[string]int{"open": 0, "pending": 0, "closed": 0} {
			got := count(t, d, `SELECT COUNT(*) FROM tickets WHERE company_id = $1 AND status = $2`, company, status)
			if got == 0 {
				t.Errorf("no %s ticket imported (%d)", status, n)
			}
		}
		// History of ours never goes out again: nothing waits at ack 0.
		if got := count(t, d, `SELECT COUNT(*) FROM messages WHERE company_id = $1 AND from_me AND ack = 0 AND provider_id = ''`, company); got != 0 {
			t.Errorf("%d of our messages at ack 0 would be sent again", got)
		}
		if got := count(t, d, `SELECT COUNT(*) FROM messages WHERE company_id = $1 AND media_type = 'image'
			AND media_url LIKE 'https://wt.example.com/public/%-foto.jpeg'`, company); got == 0 {
			t.Error("no image message carries its media link")
		}
		if got := count(t, d, `SELECT COUNT(*) FROM messages WHERE company_id = $1 AND from_me AND ack = 3`, company); got == 0 {
			t.Error("no receipt of ours carried")
		}
		if got := count(t, d, `SELECT COUNT(*) FROM messages WHERE company_id = $1 AND is_deleted`, company); got == 0 {
			t.Error("no deleted message")
		}
		if got := count(t, d, `SELECT COUNT(*) FROM messages WHERE company_id = $1 AND quoted_msg_id <> 0`, company); got == 0 {
			t.Error("no quote kept")
		}
		if got := count(t, d, `SELECT COUNT(*) FROM messages WHERE company_id = $1 AND provider_id = '3EB000000100ABCDEF'`, company); got != 1 {
			t.Errorf("whaticket's message id is the provider id of %d messages, want 1", got)
		}
		if got := count(t, d, `SELECT COUNT(*) FROM contacts WHERE company_id = $1 AND number = '556599990000-1612345678' AND NOT is_group OR is_group`, company); got < 1 {
			t.Error("the group contact keeps its WhatsApp id as number")
		}
		if got := count(t, d, `SELECT COUNT(*) FROM contact_extra_info WHERE company_id = $1 AND name = 'CPF'`, company); got != 8 {
			t.Errorf("custom fields: %d, want 8", got)
		}
		if got := count(t, d, `SELECT COUNT(*) FROM user_queues WHERE company_id = $1`, company); got != 3 {
			t.Errorf("user queues: %d, want 3", got)
		}
		if got := count(t, d, `SELECT COUNT(*) FROM contact_tickets WHERE company_id = $1`, company); got == 0 {
			t.Error("no conversation guard points at an imported ticket")
		}
		// One map row a ticket, all below the progress mark.
		if got := count(t, d, `SELECT COUNT(*) FROM import_map WHERE company_id = $1 AND kind = 'ticket'`, company); got != want.WantTickets {
			t.Errorf("import_map holds %d tickets, want %d", got, want.WantTickets)
		}
		if got := count(t, d, `SELECT COUNT(*) FROM import_map m JOIN import_progress p USING (company_id, source)
			WHERE m.kind = 'ticket' AND CAST(m.source_id AS BIGINT) > p.tickets_done_through`); got != 0 {
			t.Errorf("%d claimed tickets above the progress mark after a whole run", got)
		}
		if got := count(t, d, `SELECT COUNT(*) FROM import_map WHERE kind = 'ticket.done'`); got != 0 {
			t.Errorf("%d ticket.done rows written", got)
		}

		users := store.NewUsers(d, nil)
		for email, pw := range want.Users {
			u, err := users.ByEmail(ctx, email)
			if err != nil {
				t.Fatalf("user %s: %v", email, err)
			}
			if u.CompanyID != company || bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(pw)) != nil {
				t.Errorf("user %s does not log in with the whaticket password", email)
			}
		}
		if _, err := users.ByEmail(ctx, "not-an-email"); err == nil {
			t.Error("the user with an invalid e-mail was imported")
		}
		settings := store.NewSettings(d, nil)
		if s, err := settings.Get(ctx, company, engine.SettingUserCreation); err != nil || s.Value != "disabled" {
			t.Errorf("userCreation = %+v, %v", s, err)
		}

		// 3. Again: nothing new, and no ticket folded again.
		events := count(t, d, `SELECT COUNT(*) FROM events`)
		reads := &readCounter{Journal: j}
		cfg.Journal = reads
		again, err := importwhaticket.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if again.Events != 0 || len(again.Created) != 0 {
			t.Errorf("third run wrote %d events, created %v", again.Events, again.Created)
		}
		if again.Existing["ticket"] != want.WantTickets || again.Existing["contact"] != want.WantContacts {
			t.Errorf("third run found %v, want %d tickets and %d contacts", again.Existing, want.WantTickets, want.WantContacts)
		}
		if got := count(t, d, `SELECT COUNT(*) FROM events`); got != events {
			t.Errorf("events %d → %d", events, got)
		}
		if n := reads.reads.Load(); n != 0 {
			t.Errorf("third run read %d ticket streams, want none", n)
		}

		// 4. Again, on the marks an import before migration 1140 left: a ticket.done
		// row a ticket and no progress mark. Nothing new either.
		for _, q := range []string{`DELETE FROM import_progress`,
			`INSERT INTO import_map (company_id, source, kind, source_id, target_id)
				SELECT company_id, source, 'ticket.done', source_id, target_id FROM import_map WHERE kind = 'ticket'`} {
			if _, err := d.SQL.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		old, err := importwhaticket.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if old.Events != 0 || len(old.Created) != 0 || old.Existing["ticket"] != want.WantTickets {
			t.Errorf("run on the earlier marks wrote %d events, created %v, found %v", old.Events, old.Created, old.Existing)
		}
		if n := reads.reads.Load(); n != 0 {
			t.Errorf("run on the earlier marks read %d ticket streams, want none", n)
		}
		if !bytes.Contains(progress.Bytes(), []byte("messages")) {
			t.Errorf("no progress line: %q", progress.String())
		}
	})
}

// TestImportVolume measures an import of ATENDE_IMPORT_VOLUME messages (10 a
// ticket) into a PostgreSQL that commits durably, then the read models built from it.
// It runs only when asked: `ATENDE_IMPORT_VOLUME=100000 go test -run Volume`.
func TestImportVolume(t *testing.T) {
	volume, _ := strconv.Atoi(os.Getenv("ATENDE_IMPORT_VOLUME"))
	if volume <= 0 {
		t.Skip("set ATENDE_IMPORT_VOLUME to measure")
	}
	srcURL := dbtest.URL(t, db.Postgres)
	tickets := volume / 10
	start := time.Now()
	whaticketdbtest.Bulk(t, srcURL, max(tickets/3, 1), tickets, 10)
	t.Logf("source of %d tickets, %d messages built in %s", tickets, tickets*10, time.Since(start).Round(time.Millisecond))
	d, err := db.Open(context.Background(), dbtest.DurableURL(t, db.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	j, err := journal.New(d, journal.Config{MaxBatch: 8192})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	batch, _ := strconv.Atoi(os.Getenv("ATENDE_IMPORT_BATCH"))
	workers, _ := strconv.Atoi(os.Getenv("ATENDE_IMPORT_WORKERS"))
	rep, err := importwhaticket.Run(context.Background(), importwhaticket.Config{From: srcURL, DB: d, Journal: j,
		Batch: batch, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("import: %s", rep.Summary())
	msgs := rep.Created["message"]
	t.Logf("import: %d messages, %d events in %s: %.0f messages/s", msgs, rep.Events, rep.Elapsed.Round(time.Millisecond),
		float64(msgs)/rep.Elapsed.Seconds())
	start = time.Now()
	buildReadModels(t, d, j)
	el := time.Since(start)
	t.Logf("read models: %d events in %s: %.0f events/s", rep.Events, el.Round(time.Millisecond), float64(rep.Events)/el.Seconds())
	if got := count(t, d, `SELECT COUNT(*) FROM messages`); got != msgs {
		t.Errorf("messages read model has %d, want %d", got, msgs)
	}
	src, err := sql.Open("pgx", srcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for name, q := range map[string]*sql.DB{"whaticket": src, "Atende": d.SQL} {
		total, largest := dbtest.TableSizes(t, q)
		t.Logf("%s's tables: %.1f MB: %s", name, float64(total)/1e6, largest)
	}
}
