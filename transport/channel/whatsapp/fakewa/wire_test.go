package fakewa_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/store/sqlstore"
	"go.mau.fi/whatsmeow/types/events"
	waLog "go.mau.fi/whatsmeow/util/log"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/channel/whatsapp"
	"atende/transport/channel/whatsapp/fakewa"
)

// A real whatsmeow client pairs with the wire-level fake: TLS websocket, Noise XX
// handshake with the fake's certificate chain, binary nodes, pair-device → QR codes,
// scan → pair-success (ADV HMAC and signature checked by whatsmeow) → 515 → login →
// Connected.
func TestWireHandshakeAndPairing(t *testing.T) {
	srv, err := fakewa.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	whatsmeow.WACertPubKey = srv.RootKey
	d := dbtest.Open(t, db.SQLite)
	ctx := context.Background()
	c := sqlstore.NewWithDB(d.SQL, string(d.Dialect), waLog.Noop)
	if err := c.Upgrade(ctx); err != nil {
		t.Fatal(err)
	}
	dev := c.NewDevice()
	cli := whatsmeow.NewClient(dev, waLog.Noop)
	hc, err := fakewa.HTTPClient(srv.Addr, srv.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	cli.SetWebsocketHTTPClient(hc)
	cli.SetPreLoginHTTPClient(hc)
	connected := make(chan struct{}, 1)
	paired := make(chan struct{}, 1)
	cli.AddEventHandler(func(evt any) {
		switch evt.(type) {
		case *events.PairSuccess:
			paired <- struct{}{}
		case *events.Connected:
			connected <- struct{}{}
		}
	})
	qr, err := cli.GetQRChannel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Connect(); err != nil {
		t.Fatal(err)
	}
	defer cli.Disconnect()
	var code string
	select {
	case item := <-qr:
		if item.Event != "code" {
			t.Fatalf("QR item %+v", item)
		}
		code = item.Code
	case <-time.After(10 * time.Second):
		t.Fatal("no QR code")
	}
	jid, err := srv.ScanWire(code)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-paired:
	case <-time.After(10 * time.Second):
		t.Fatal("no PairSuccess")
	}
	select {
	case <-connected:
	case <-time.After(15 * time.Second):
		t.Fatal("no Connected")
	}
	if cli.Store.ID == nil || cli.Store.ID.User != jid.User || !cli.IsLoggedIn() || srv.Logins() != 1 {
		t.Fatalf("store id %v, logged in %v, logins %d", cli.Store.ID, cli.IsLoggedIn(), srv.Logins())
	}
}

// The adapter pairs over the wire: QR codes become qrcode statuses, the scan PAIRING
// then CONNECTED; a restart logs in with the stored device (no QR code).
func TestChannelOverTheWire(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		srv, err := fakewa.NewServer("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		ctl := httptest.NewServer(srv.Control())
		defer ctl.Close()
		ctx := context.Background()
		devs, err := whatsapp.OpenDevices(ctx, d.SQL, string(d.Dialect), waLog.Noop)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := whatsapp.NewEndpoint(srv.Addr, srv.CertPEM, srv.RootKey)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := whatsapp.NewFactory(whatsapp.Config{Devices: devs, Endpoint: ep})
		ch, _ := f.NewChannel(engine.Connection{ID: 9, CompanyID: 1, Channel: engine.ChannelWhatsApp})
		s := &sink{}
		if err := ch.Start(ctx, s); err != nil {
			t.Fatal(err)
		}
		defer ch.Stop(ctx)
		qr := s.waitFor(t, engine.ConnQRCode)
		for body, want := range map[string]int{`{"code":"2@nope,a,b,c"}`: 404, `{}`: 400, `x`: 400} {
			res, err := http.Post(ctl.URL+"/scan", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != want {
				t.Errorf("scan %s = %d, want %d", body, res.StatusCode, want)
			}
		}
		b, _ := json.Marshal(map[string]string{"code": qr.QRCode})
		res, err := http.Post(ctl.URL+"/scan", "application/json", strings.NewReader(string(b)))
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("scan: %v %v", res, err)
		}
		var paired struct{ Number string }
		_ = json.NewDecoder(res.Body).Decode(&paired)
		res.Body.Close()
		if st := s.waitFor(t, engine.ConnPairing); st.Number != paired.Number {
			t.Fatalf("PAIRING as %q, paired %q", st.Number, paired.Number)
		}
		if st := s.waitFor(t, engine.ConnConnected); st.Number != paired.Number {
			t.Fatalf("CONNECTED as %q", st.Number)
		}
		if err := ch.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		s2 := &sink{}
		if err := ch.Start(ctx, s2); err != nil {
			t.Fatal(err)
		}
		s2.waitFor(t, engine.ConnConnected)
		if srv.Logins() != 2 {
			t.Fatalf("logins %d, want 2", srv.Logins())
		}
		// WhatsApp unreachable at start: a paired device keeps trying (OPENING), Start
		// does not fail.
		if err := ch.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		s3 := &sink{}
		if err := ch.Start(ctx, s3); err != nil {
			t.Fatalf("start while WhatsApp is unreachable: %v", err)
		}
		s3.waitFor(t, engine.ConnOpening)
	})
}
