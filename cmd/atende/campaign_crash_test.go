package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/channel/whatsapp/fakewa"
)

// A campaign survives kill -9 of its node: the real `atende serve` sends a campaign of
// 300 contacts × 2 messages on a WhatsApp connection whose clients are fakewa.Phone
// (--whatsapp-fake-phone), each send taking 500 ms and appended to a log file the
// node cannot take back (--whatsapp-fake-phone-log). Once part of the campaign is on
// the log the node gets SIGKILL with sends in flight; restarted with the same
// configuration it finishes the campaign (River rescues the job, stale claims are
// taken again, docs/campaigns.md). Then every contact got each message exactly once:
// one WhatsApp message id per (contact, message), none missing, none extra. A send
// that reached the phone but whose outcome the kill lost is sent again under the id
// fixed for it before the first attempt, which a WhatsApp client shows once; the
// test counts those re-sends and asserts they never carry a second id. The
// campaign's counters and per-contact report through the API agree.
func TestCampaignSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			t.Parallel()
			testCampaignSurvivesKill9(t, dialect)
		})
	}
}

const (
	killContacts = 300
	killMessages = 2
	// killAfter is how many sends are on the phone's log when the node is killed:
	// past the first batch's outcomes, with the next batches in flight.
	killAfter = 120
)

func testCampaignSurvivesKill9(t *testing.T, dialect db.Dialect) {
	dbURL := dbtest.URL(t, dialect)
	sentLog := filepath.Join(t.TempDir(), "sent.jsonl")
	phoneAddr := freeAddr(t)
	env := []string{"DATABASE_URL=" + dbURL, "DATA_DIR=" + t.TempDir(), "JWT_SECRET=" + strings.Repeat("camp-9-", 8),
		"SEED_DEMO=1", "LOG_LEVEL=warn", "CAMPAIGN_INTERVAL=0"}
	// A send takes 500 ms: a batch of 100 sends (50 contacts, each contact's two
	// messages in sequence) takes at least a second, so the campaign lasts at least
	// 6 s and the kill finds sends in flight however slow the machine is.
	args := []string{"--whatsapp-fake-phone", phoneAddr, "--whatsapp-fake-phone-log", sentLog,
		"--whatsapp-fake-phone-delay", "500ms"}
	addr := freeAddr(t)
	p := startProcessArgs(t, env, addr, args...)
	admin := login(t, p.base, "admin@atende.local", "admin123")

	// A WhatsApp connection paired with the fake phone.
	var conn engine.Connection
	admin.call("POST", "/whatsapp", map[string]any{"name": "WhatsApp campanha"}, http.StatusCreated, &conn)
	connPath := fmt.Sprintf("/whatsapp/%d", conn.ID)
	pollUntil(t, "a QR code on the connection", time.Minute, func() bool {
		admin.call("GET", connPath, nil, http.StatusOK, &conn)
		return conn.Status == engine.ConnQRCode && conn.QRCode != ""
	})
	body, _ := json.Marshal(map[string]string{"code": conn.QRCode})
	res, err := http.Post("http://"+phoneAddr+"/scan", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("scan: %d", res.StatusCode)
	}
	pollUntil(t, "the connection CONNECTED", time.Minute, func() bool {
		admin.call("GET", connPath, nil, http.StatusOK, &conn)
		return conn.Status == engine.ConnConnected
	})

	// The campaign: 300 contacts from CSV lines (each a new contact), two messages
	// naming the contact's number through @param1, sent now without pacing.
	csv := make([]engine.CampaignContactParams, killContacts)
	want := map[string]bool{} // "<jid>\x00<body>" of every message a contact must get
	for i := range csv {
		number := fmt.Sprintf("55659%08d", i)
		csv[i] = engine.CampaignContactParams{Number: number, Name: fmt.Sprintf("Contato %03d", i), Params: []string{number}}
		for seq := 1; seq <= killMessages; seq++ {
			want[number+"@s.whatsapp.net\x00"+killBody(seq, number)] = true
		}
	}
	messages := make([]map[string]any, killMessages)
	for i := range messages {
		messages[i] = map[string]any{"seq": i + 1, "body": killBody(i+1, "@param1")}
	}
	var camp engine.Campaign
	admin.call("POST", "/campaigns", map[string]any{"kind": "campaign", "name": "Kill -9", "csv": csv,
		"nameFilter": "%", "channelFilter": "%", "sendFrom": []engine.ID{conn.ID},
		"startAt": time.Now().UTC().Format(time.RFC3339), "messages": messages}, http.StatusCreated, &camp)
	if camp.Total != killContacts*killMessages {
		t.Fatalf("campaign of %d sends, want %d", camp.Total, killContacts*killMessages)
	}

	pollUntil(t, fmt.Sprintf("%d sends on the phone's log", killAfter), 2*time.Minute, func() bool {
		return len(readSentLog(t, sentLog)) >= killAfter
	})
	p.kill9(t)
	before := len(readSentLog(t, sentLog))
	if before >= len(want) {
		t.Fatalf("the campaign ended before the kill (%d sends logged): nothing was in flight", before)
	}
	t.Logf("%s: killed with %d of %d sends on the phone's log", dialect, before, len(want))

	killed := time.Now()
	p = startProcessArgs(t, env, addr, args...)
	admin = login(t, p.base, "admin@atende.local", "admin123")
	// River rescues the dead node's job after a minute and its claims are taken again
	// after two: a bound against a hang, not a speed check.
	campPath := fmt.Sprintf("/campaigns/%d", camp.ID)
	t.Cleanup(func() {
		if t.Failed() {
			// What the node said, for a campaign that did not finish.
			b, _ := os.ReadFile(p.logPath)
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			t.Logf("campaign %+v\nconnection %s\nnode log (end):\n%s", camp, conn.Status, b)
			if d, err := db.Open(context.Background(), dbURL); err == nil {
				defer d.Close()
				for _, q := range []string{`SELECT id, queue, kind, state, attempt, scheduled_at, attempted_by, errors FROM river_job`,
					`SELECT status, COUNT(*), MIN(claimed_at) FROM campaign_sends GROUP BY status`,
					`SELECT * FROM campaign_lanes`} {
					t.Logf("%s:\n%s", q, dumpRows(d, q))
				}
			}
		}
	})
	pollUntil(t, "the campaign finished after the restart", 8*time.Minute, func() bool {
		admin.call("GET", campPath, nil, http.StatusOK, &camp)
		admin.call("GET", connPath, nil, http.StatusOK, &conn)
		return camp.Status == engine.CampaignFinished
	})
	t.Logf("%s: finished %s after the kill", dialect, time.Since(killed).Round(time.Second))

	// The phone's log: one WhatsApp id per expected message, no other message.
	sent := readSentLog(t, sentLog)
	ids := map[string]map[string]bool{} // "<jid>\x00<body>" → WhatsApp ids it went out under
	idOwner := map[string]string{}      // WhatsApp id → "<jid>\x00<body>"
	for _, s := range sent {
		key := s.To + "\x00" + s.Body
		if !want[key] {
			t.Errorf("unexpected send on the phone: %+v", s)
			continue
		}
		if owner, ok := idOwner[s.ID]; ok && owner != key {
			t.Errorf("WhatsApp id %s used for two messages: %q and %q", s.ID, owner, key)
		}
		idOwner[s.ID] = key
		if ids[key] == nil {
			ids[key] = map[string]bool{}
		}
		ids[key][s.ID] = true
	}
	for key := range want {
		if n := len(ids[key]); n != 1 {
			t.Errorf("%q reached the phone under %d WhatsApp ids, want exactly 1", key, n)
		}
	}
	t.Logf("%s: %d sends on the log for %d messages (%d re-sent after the kill under their first id, shown once)",
		dialect, len(sent), len(want), len(sent)-len(idOwner))

	// The campaign's report says the same: every send sent, none in error.
	if camp.Sent != len(want) || camp.Errors != 0 || camp.Pending != 0 {
		t.Errorf("campaign counters sent %d, errors %d, pending %d; want %d, 0, 0", camp.Sent, camp.Errors, camp.Pending, len(want))
	}
	reported := map[string]bool{}
	for after := engine.ID(0); ; {
		var page struct {
			Sends   []engine.CampaignSend `json:"sends"`
			HasMore bool                  `json:"hasMore"`
		}
		admin.call("GET", fmt.Sprintf("%s/sends?after=%d&limit=1000", campPath, after), nil, http.StatusOK, &page)
		for _, s := range page.Sends {
			after = s.ID
			key := s.Number + "@s.whatsapp.net\x00" + killBody(s.Seq, s.Number)
			if s.Status != engine.SendSent || s.Error != "" {
				t.Errorf("send %d (%s, message %d): %s %s", s.ID, s.Number, s.Seq, s.Status, s.Error)
			}
			if reported[key] {
				t.Errorf("send of %s, message %d, reported twice", s.Number, s.Seq)
			}
			reported[key] = true
			if len(ids[key]) != 1 {
				t.Errorf("send of %s, message %d, reported %s but on the phone %d times", s.Number, s.Seq, s.Status, len(ids[key]))
			}
		}
		if !page.HasMore {
			break
		}
	}
	if len(reported) != len(want) {
		t.Errorf("the report lists %d sends, want %d", len(reported), len(want))
	}
}

// killBody is message seq of the kill -9 campaign to number (or to "@param1" for the
// template).
func killBody(seq int, number string) string {
	return fmt.Sprintf("Campanha kill -9, mensagem %d para %s", seq, number)
}

// readSentLog reads the fake phone's log of sends (fakewa.Phone.LogTo). A line the
// killed node was writing may be cut: it is ignored, as the send it records never
// answered success.
func readSentLog(t *testing.T, path string) []fakewa.Sent {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fakewa.Sent
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s fakewa.Sent
		if json.Unmarshal(sc.Bytes(), &s) == nil {
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dumpRows is the rows of query q as text, for a failure's diagnostics.
func dumpRows(d *db.DB, q string) string {
	rows, err := d.SQL.Query(q)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err.Error()
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			fmt.Fprintf(&out, "%s=%v ", cols[i], v)
		}
		out.WriteString("\n")
	}
	if err := rows.Err(); err != nil {
		out.WriteString(err.Error())
	}
	return out.String()
}

// pollUntil polls cond every 200 ms until it holds, failing t after bound: a bound
// against a hang, never a speed check.
func pollUntil(t testing.TB, what string, bound time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, bound)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
