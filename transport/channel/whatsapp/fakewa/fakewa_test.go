package fakewa_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	waLog "go.mau.fi/whatsmeow/util/log"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/channel/whatsapp"
	"atende/transport/channel/whatsapp/fakewa"
)

type sink struct {
	mu       sync.Mutex
	statuses []engine.StatusChange
}

func (s *sink) Inbound(context.Context, engine.InboundMessage) error { return nil }
func (s *sink) Receipt(context.Context, engine.Receipt) error        { return nil }
func (s *sink) Status(_ context.Context, st engine.StatusChange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses = append(s.statuses, st)
	return nil
}

func (s *sink) waitFor(t *testing.T, status string) engine.StatusChange {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		for _, st := range s.statuses {
			if st.Status == status {
				s.mu.Unlock()
				return st
			}
		}
		s.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s status; got %+v", status, s.statuses)
	return engine.StatusChange{}
}

func TestPairThroughControlAPI(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		devs, err := whatsapp.OpenDevices(ctx, d.SQL, string(d.Dialect), waLog.Noop)
		if err != nil {
			t.Fatal(err)
		}
		phone := fakewa.New()
		srv := httptest.NewServer(phone)
		defer srv.Close()
		f, err := whatsapp.NewFactory(whatsapp.Config{Devices: devs, NewClient: phone.NewClient})
		if err != nil {
			t.Fatal(err)
		}
		ch, _ := f.NewChannel(engine.Connection{ID: 4, CompanyID: 1, Channel: engine.ChannelWhatsApp})
		s := &sink{}
		if err := ch.Start(ctx, s); err != nil {
			t.Fatal(err)
		}
		qr := s.waitFor(t, engine.ConnQRCode)
		if !strings.HasPrefix(qr.QRCode, "2@") || strings.Count(qr.QRCode, ",") != 3 {
			t.Fatalf("QR code %q", qr.QRCode)
		}
		for body, want := range map[string]int{`{"code":"2@nope"}`: 404, `{}`: 400, `not json`: 400} {
			res, err := http.Post(srv.URL+"/scan", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != want {
				t.Errorf("scan %s = %d, want %d", body, res.StatusCode, want)
			}
		}
		b, _ := json.Marshal(map[string]string{"code": qr.QRCode})
		res, err := http.Post(srv.URL+"/scan", "application/json", strings.NewReader(string(b)))
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("scan: %v %v", res, err)
		}
		var paired struct{ Number string }
		_ = json.NewDecoder(res.Body).Decode(&paired)
		res.Body.Close()
		if st := s.waitFor(t, engine.ConnPairing); st.Number != paired.Number {
			t.Fatalf("PAIRING number %q, paired %q", st.Number, paired.Number)
		}
		if st := s.waitFor(t, engine.ConnConnected); st.Number != paired.Number {
			t.Fatalf("CONNECTED number %q", st.Number)
		}
		id, err := ch.Send(ctx, engine.OutboundMessage{MessageID: 77, To: "5511988887777", Body: "Oi"})
		if err != nil || len(phone.Sent()) != 1 || phone.Sent()[0].ID != id || phone.Sent()[0].Body != "Oi" {
			t.Fatalf("send %q %v %+v", id, err, phone.Sent())
		}
		// A restart finds the paired device: it connects without a QR code.
		if err := ch.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		s2 := &sink{}
		if err := ch.Start(ctx, s2); err != nil {
			t.Fatal(err)
		}
		if st := s2.waitFor(t, engine.ConnConnected); st.Number != paired.Number {
			t.Fatalf("reconnected as %q", st.Number)
		}
		for _, st := range s2.statuses {
			if st.Status == engine.ConnQRCode {
				t.Fatal("paired device asked for a QR code")
			}
		}
		// Wiping logs out and forgets the device: the next start pairs afresh.
		if err := ch.(engine.CredentialWiper).WipeCredentials(ctx); err != nil {
			t.Fatal(err)
		}
		s3 := &sink{}
		if err := ch.Start(ctx, s3); err != nil {
			t.Fatal(err)
		}
		s3.waitFor(t, engine.ConnQRCode)
		_ = ch.Stop(ctx)
	})
}
