package importwhaticket_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/importwhaticket"
	"atende/persistence/journal"
	"atende/persistence/store"
)

// A synthesized shop is the same in SQLite and in PostgreSQL, refuses to be written
// twice, and imports whole: every row, nothing skipped, tickets in every status,
// attendants who log in with the documented password.
func TestSynthesizedShopImports(t *testing.T) {
	ctx := context.Background()
	v := importwhaticket.Volume{Contacts: 40, Tickets: 50, MessagesPerTicket: 4}
	sources := map[string]string{
		"sqlite":   "sqlite:" + filepath.Join(t.TempDir(), "whaticket.db"),
		"postgres": dbtest.URL(t, db.Postgres),
	}
	rows := map[string][][2]string{}
	for name, src := range sources {
		if err := importwhaticket.Synthesize(ctx, src, v, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := importwhaticket.Synthesize(ctx, src, v, nil); err == nil {
			t.Errorf("%s: a second synthesis into the same database succeeded", name)
		}
		rows[name] = sourceMessages(t, src)
	}
	if len(rows["sqlite"]) != v.Messages() || !reflect.DeepEqual(rows["sqlite"], rows["postgres"]) {
		t.Fatalf("the two sources differ: %d and %d messages", len(rows["sqlite"]), len(rows["postgres"]))
	}

	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			d, err := db.Open(ctx, dbtest.URL(t, db.SQLite))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if _, err := d.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			j, err := journal.New(d, journal.Config{MaxBatch: 4096})
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			rep, err := importwhaticket.Run(ctx, importwhaticket.Config{From: src, DB: d, Journal: j, CompanyName: "Volume"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{"ticket": v.Tickets, "message": v.Messages(), "contact": v.Contacts,
				"user": 1 + importwhaticket.VolumeAttendants, "queue": 4}
			for kind, n := range want {
				if rep.Created[kind] != n {
					t.Errorf("created %d %s, want %d", rep.Created[kind], kind, n)
				}
			}
			if len(rep.Skipped) != 0 {
				t.Errorf("skipped %v", rep.Skipped)
			}
			buildReadModels(t, d, j)
			company := rep.CompanyID
			for _, status := range []string{"open", "pending", "closed"} {
				if count(t, d, `SELECT COUNT(*) FROM tickets WHERE company_id = $1 AND status = $2`, company, status) == 0 {
					t.Errorf("no %s ticket", status)
				}
			}
			// One open or pending ticket per contact at most, as whaticket allows.
			if n := count(t, d, `SELECT COUNT(*) FROM (SELECT contact_id FROM tickets WHERE company_id = $1
				AND status <> 'closed' GROUP BY contact_id HAVING COUNT(*) > 1) x`, company); n != 0 {
				t.Errorf("%d contacts with two live tickets", n)
			}
			// Our messages' receipts came with them: read, and no event of their own.
			if n := count(t, d, `SELECT COUNT(*) FROM events WHERE type = 'ticket.message_acked'`); n != 0 {
				t.Errorf("%d acknowledgement events for history", n)
			}
			if n := count(t, d, `SELECT COUNT(*) FROM messages WHERE company_id = $1 AND from_me AND ack <> 3`, company); n != 0 {
				t.Errorf("%d of our messages without their read receipt", n)
			}
			if count(t, d, `SELECT COUNT(*) FROM messages WHERE company_id = $1 AND media_type = 'image'`, company) == 0 {
				t.Error("no photo among the messages")
			}
			if got := count(t, d, `SELECT COUNT(*) FROM user_queues WHERE company_id = $1`, company); got != 30 {
				t.Errorf("user queues: %d, want 30", got)
			}
			users := store.NewUsers(d, nil)
			for _, email := range []string{importwhaticket.VolumeAdmin, "atendente7@volume.test"} {
				u, err := users.ByEmail(ctx, email)
				if err != nil {
					t.Fatalf("user %s: %v", email, err)
				}
				if u.CompanyID != company || bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(importwhaticket.VolumePassword)) != nil {
					t.Errorf("%s does not log in with the volume password", email)
				}
			}
		})
	}
}

// Synthesize refuses an empty volume, a MySQL target and a SQLite URL without a path,
// and writes nothing then.
func TestSynthesizeRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	for _, c := range []struct {
		url string
		v   importwhaticket.Volume
	}{
		{"sqlite:" + path, importwhaticket.Volume{}},
		{"sqlite:" + path, importwhaticket.Volume{Contacts: 1, Tickets: -1, MessagesPerTicket: 1}},
		{"mysql://u:p@127.0.0.1:1/w", importwhaticket.VolumeOf(10)},
		{"sqlite:", importwhaticket.VolumeOf(10)},
		{"ftp://example.com/w", importwhaticket.VolumeOf(10)},
	} {
		if err := importwhaticket.Synthesize(ctx, c.url, c.v, nil); err == nil {
			t.Errorf("Synthesize(%q, %+v) succeeded", c.url, c.v)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a refused synthesis left a database behind")
	}
}

// sourceMessages reads a whaticket database's messages: id and body, by id.
func sourceMessages(t *testing.T, src string) [][2]string {
	t.Helper()
	driver, dsn := "pgx", src
	if p, ok := strings.CutPrefix(src, "sqlite:"); ok {
		driver, dsn = "sqlite", p
	}
	q, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	rows, err := q.Query(`SELECT id, body FROM "Messages" ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var r [2]string
		if err := rows.Scan(&r[0], &r[1]); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
