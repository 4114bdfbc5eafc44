package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// A WhatsApp connection added through the API pairs with the fake WhatsApp (nothing
// leaves the machine): its QR code shows on the connection, the fake "scans" it, and
// the connection becomes CONNECTED with the paired number — through the real adapter,
// whatsmeow's QR channel and device store, the connection actor and the REST API.
func TestWhatsAppFakePairing(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(string(d), func(t *testing.T) { testWhatsAppFakePairing(t, d) })
	}
}

func testWhatsAppFakePairing(t *testing.T, dialect db.Dialect) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fakeAddr := ln.Addr().String()
	ln.Close()
	cfg := testConfig(t, dbtest.URL(t, dialect))
	cfg.WhatsAppFake = fakeAddr
	ta := startApp(t, cfg)
	admin := login(t, ta.base, "admin@atende.local", "admin123")
	var conn engine.Connection
	admin.call("POST", "/whatsapp", map[string]any{"name": "WhatsApp e2e", "greetingMessage": "Olá"}, http.StatusCreated, &conn)
	if conn.Channel != engine.ChannelWhatsApp {
		t.Fatalf("created %+v", conn)
	}
	path := fmt.Sprintf("/whatsapp/%d", conn.ID)
	waitFor(t, "a QR code on the connection", func() bool {
		admin.call("GET", path, nil, http.StatusOK, &conn)
		return conn.Status == engine.ConnQRCode && conn.QRCode != ""
	})
	body, _ := json.Marshal(map[string]string{"code": conn.QRCode})
	res, err := http.Post("http://"+fakeAddr+"/scan", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var paired struct{ Number string }
	_ = json.NewDecoder(res.Body).Decode(&paired)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || paired.Number == "" {
		t.Fatalf("scan: %d %+v", res.StatusCode, paired)
	}
	waitFor(t, "CONNECTED", func() bool {
		admin.call("GET", path, nil, http.StatusOK, &conn)
		return conn.Status == engine.ConnConnected
	})
	if conn.Number != paired.Number || conn.QRCode != "" {
		t.Fatalf("connected as %+v, paired %s", conn, paired.Number)
	}
	// Wiping the credentials and renewing the session asks for a new QR code.
	admin.call("DELETE", fmt.Sprintf("/whatsappcreds/%d", conn.ID), nil, http.StatusOK, nil)
	admin.call("POST", fmt.Sprintf("/whatsappsession/%d", conn.ID), nil, http.StatusOK, nil)
	waitFor(t, "a new QR code after the wipe", func() bool {
		admin.call("GET", path, nil, http.StatusOK, &conn)
		return conn.Status == engine.ConnQRCode && conn.QRCode != ""
	})
	// A second connection of the node pairs on its own.
	var second engine.Connection
	admin.call("POST", "/whatsapp", map[string]any{"name": "WhatsApp 2", "greetingMessage": "Olá"}, http.StatusCreated, &second)
	waitFor(t, "a QR code on the second connection", func() bool {
		admin.call("GET", fmt.Sprintf("/whatsapp/%d", second.ID), nil, http.StatusOK, &second)
		return second.Status == engine.ConnQRCode && second.QRCode != ""
	})
}
