package credentials

import (
	"context"
	"errors"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func TestCredentialsStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'A'), (2, 'B')`)
		conns := connection.New(d, nil)
		a, err := conns.Create(ctx, 1, engine.ConnectionInput{Name: "WABA", Channel: engine.ChannelWABA})
		if err != nil {
			t.Fatal(err)
		}
		b, err := conns.Create(ctx, 2, engine.ConnectionInput{Name: "Bot", Channel: engine.ChannelTelegram})
		if err != nil {
			t.Fatal(err)
		}
		s := New(d, nil)
		if _, err := s.Get(ctx, a.ID); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("get before put: %v", err)
		}
		in := engine.ChannelCredentials{ConnectionID: a.ID, CompanyID: 1, Provider: engine.ProviderWABA, ExternalID: "1001", AccountID: "2002", Token: "EAAG-secret"}
		if err := s.Put(ctx, in); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, a.ID)
		if err != nil || got != in {
			t.Fatalf("get = %+v, %v; want %+v", got, err, in)
		}
		got, err = s.ByExternal(ctx, engine.ProviderWABA, "1001")
		if err != nil || got.ConnectionID != a.ID {
			t.Fatalf("by external = %+v, %v", got, err)
		}
		if _, err := s.ByExternal(ctx, engine.ProviderFacebook, "1001"); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("other provider: %v", err)
		}
		// A web-hook's hostile id is not found, on both databases (PostgreSQL would
		// refuse the query: a 500 the provider re-delivers forever).
		for _, id := range []string{"10\x0001", "\xff\xfe", strings.Repeat("9", 1<<20)} {
			if _, err := s.ByExternal(ctx, engine.ProviderWABA, id); engine.CodeOf(err) != engine.ErrNotFound {
				t.Fatalf("by external %.20q: %v", id, err)
			}
		}
		// Credentials a database cannot store are refused before the write.
		bad := in
		bad.Token = "EAAG\x00"
		if err := s.Put(ctx, bad); engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("put with NUL: %v", err)
		}
		if got, _ := s.Get(ctx, a.ID); got != in {
			t.Fatalf("after a refused put: %+v", got)
		}
		// Replacing keeps one row and changes the secret.
		in.Token = "EAAG-new"
		if err := s.Put(ctx, in); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Get(ctx, a.ID); got.Token != "EAAG-new" {
			t.Fatalf("token after replace = %q", got.Token)
		}
		// The same phone number id cannot route to two connections.
		err = s.Put(ctx, engine.ChannelCredentials{ConnectionID: b.ID, CompanyID: 2, Provider: engine.ProviderWABA, ExternalID: "1001", Token: "x"})
		if !errors.Is(err, engine.ErrCredentialsTaken) {
			t.Fatalf("taken external id: %v", err)
		}
		if err := s.Put(ctx, engine.ChannelCredentials{ConnectionID: b.ID, CompanyID: 2, Provider: engine.ProviderTelegram, ExternalID: "77", Token: "77:AA", Secret: "s3"}); err != nil {
			t.Fatal(err)
		}
		list, err := s.ByCompany(ctx, 2, engine.ProviderTelegram)
		if err != nil || len(list) != 1 || list[0].ConnectionID != b.ID {
			t.Fatalf("by company = %+v, %v", list, err)
		}
		if list, _ := s.ByCompany(ctx, 1, engine.ProviderTelegram); len(list) != 0 {
			t.Fatalf("other tenant sees %+v", list)
		}
		// Redaction.
		if s := got.String(); strings.Contains(s, "EAAG") {
			t.Fatalf("String leaks the token: %s", s)
		}
		// Wipe, and deleting the connection removes its row.
		if err := s.Delete(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, a.ID); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("after delete: %v", err)
		}
		if err := s.Put(ctx, engine.ChannelCredentials{}); err == nil {
			t.Fatal("empty credentials accepted")
		}
		if err := conns.Delete(ctx, 2, b.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, b.ID); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("after connection delete: %v", err)
		}
	})
}
