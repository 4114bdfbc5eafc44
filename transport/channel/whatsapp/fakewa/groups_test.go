package fakewa_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	waLog "go.mau.fi/whatsmeow/util/log"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/channel/whatsapp"
	"atende/transport/channel/whatsapp/fakewa"
	"atende/transport/media"
)

// pairedChannel starts a WhatsApp channel against srv and pairs it; it returns the
// channel and the paired number.
func pairedChannel(t *testing.T, d *db.DB, srv *fakewa.Server, ms engine.MediaStore) (engine.Channel, string) {
	t.Helper()
	ctl := httptest.NewServer(srv.Control())
	t.Cleanup(ctl.Close)
	ctx := context.Background()
	devs, err := whatsapp.OpenDevices(ctx, d.SQL, string(d.Dialect), waLog.Noop)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := whatsapp.NewEndpoint(srv.Addr, srv.CertPEM, srv.RootKey)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := whatsapp.NewFactory(whatsapp.Config{Devices: devs, Endpoint: ep, Media: ms})
	ch, _ := f.NewChannel(engine.Connection{ID: 9, CompanyID: 1, Channel: engine.ChannelWhatsApp})
	s := &sink{}
	if err := ch.Start(ctx, s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Stop(context.Background()) })
	qr := s.waitFor(t, engine.ConnQRCode)
	b, _ := json.Marshal(map[string]string{"code": qr.QRCode})
	res, err := http.Post(ctl.URL+"/scan", "application/json", strings.NewReader(string(b)))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("scan: %v %v", res, err)
	}
	res.Body.Close()
	st := s.waitFor(t, engine.ConnConnected)
	return ch, st.Number
}

func jpegBytes(t *testing.T) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The adapter creates a group over the wire: create IQ with the admins as
// participants and the create key, promote IQ, picture IQ with the JPEG, invite IQ.
// The same key again, or a resume, answers the same group; a PNG is refused; an
// admin that is not a number is refused before anything is sent.
func TestCreateGroupOverTheWire(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		srv, err := fakewa.NewServer("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: bytes.Repeat([]byte("k"), 32)})
		if err != nil {
			t.Fatal(err)
		}
		defer ms.Close()
		ctx := context.Background()
		pic, err := ms.Save(ctx, 1, bytes.NewReader(jpegBytes(t)), "p.jpg", "image/jpeg")
		if err != nil {
			t.Fatal(err)
		}
		png, err := ms.Save(ctx, 1, strings.NewReader("\x89PNG\r\n\x1a\nxxxx"), "p.png", "image/png")
		if err != nil {
			t.Fatal(err)
		}
		ch, own := pairedChannel(t, d, srv, ms)
		gc, ok := ch.(engine.GroupCreator)
		if !ok {
			t.Fatal("the WhatsApp channel is no GroupCreator")
		}
		req := engine.GroupRequest{Key: "K1", Name: "Turma 001", Admins: []string{"5511999990001", "5511999990002"},
			MediaPath: pic.Path, MediaType: "image/jpeg"}
		got, err := gc.CreateGroup(ctx, 1, req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(got.JID, "@g.us") || !strings.HasPrefix(got.InviteLink, "https://chat.whatsapp.com/") || got.Participants != 3 {
			t.Fatalf("got %+v", got)
		}
		groups := srv.Groups()
		if len(groups) != 1 {
			t.Fatalf("groups %+v", groups)
		}
		g := groups[0]
		if g.Subject != "Turma 001" || g.Creator != own || !g.Participants["5511999990001"] || !g.Participants["5511999990002"] ||
			g.Picture == 0 || !strings.HasSuffix(got.InviteLink, g.Invite) {
			t.Fatalf("fake group %+v", g)
		}
		// The same key, and a resume under a new key, answer the group already made.
		again, err := gc.CreateGroup(ctx, 1, req)
		if err != nil || again != got {
			t.Fatalf("same key: %+v %v", again, err)
		}
		req.Key, req.Resume = "K2", true
		if again, err = gc.CreateGroup(ctx, 1, req); err != nil || again != got {
			t.Fatalf("resume: %+v %v", again, err)
		}
		if n := len(srv.Groups()); n != 1 {
			t.Fatalf("%d groups after the retries, want 1", n)
		}
		// A PNG is refused by the picture IQ (406); a bad admin before any IQ.
		_, err = gc.CreateGroup(ctx, 1, engine.GroupRequest{Key: "K3", Name: "Turma 002", Admins: []string{"5511999990001"}, MediaPath: png.Path})
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.ErrMediaTypeNotAllowed {
			t.Fatalf("png: %v", err)
		}
		_, err = gc.CreateGroup(ctx, 1, engine.GroupRequest{Key: "K4", Name: "Turma 003", Admins: []string{"55-x"}, MediaPath: pic.Path})
		if !errors.As(err, &e) || e.Code != engine.ErrWappInvalidContact {
			t.Fatalf("bad admin: %v", err)
		}
		if n := len(srv.Groups()); n != 2 {
			t.Fatalf("%d groups, want 2 (the PNG one was created before its picture failed)", n)
		}
		// The control API lists them.
		ctl := httptest.NewServer(srv.Control())
		defer ctl.Close()
		res, err := http.Get(ctl.URL + "/groups")
		if err != nil {
			t.Fatal(err)
		}
		var listed []fakewa.FakeGroup
		_ = json.NewDecoder(res.Body).Decode(&listed)
		res.Body.Close()
		if len(listed) != 2 || listed[0].Subject != "Turma 001" {
			t.Fatalf("listed %+v", listed)
		}
	})
}
