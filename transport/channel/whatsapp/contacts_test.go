package whatsapp

import (
	"context"
	"reflect"
	"testing"

	"go.mau.fi/whatsmeow/types"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// POST /contacts/import (whaticket's "import contacts") reads the address book the
// paired phone synced into whatsmeow's contact store.
func TestPhoneContactsFromThePairedSession(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		unpaired := newRig(t, d, rigOpts{})
		if _, err := unpaired.ch.PhoneContacts(ctx); engine.CodeOf(err) != engine.ErrWappNotInitialized {
			t.Fatalf("unpaired session: %v, want ERR_WAPP_NOT_INITIALIZED", err)
		}

		r := newRig(t, dbtest.Open(t, d.Dialect), rigOpts{paired: true})
		user := func(n string) types.JID { return types.NewJID(n, types.DefaultUserServer) }
		cs := r.dev.Contacts
		// whatsmeow's app-state sync stores (first name, full name) in this order.
		if err := cs.PutContactName(ctx, user("5565988880002"), "Maria", "Maria do Phone"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := cs.PutPushName(ctx, user("5565977770003"), "  José  "); err != nil {
			t.Fatal(err)
		}
		if _, _, err := cs.PutBusinessName(ctx, user("5565966660004"), "Padaria Central"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := cs.PutPushName(ctx, user("5565955550005"), "   "); err != nil {
			t.Fatal(err)
		}
		// Not people's numbers: a group, a hidden id.
		if err := cs.PutContactName(ctx, types.NewJID("120363000000000001", types.GroupServer), "Grupo", ""); err != nil {
			t.Fatal(err)
		}
		if err := cs.PutContactName(ctx, types.NewJID("123456789", types.HiddenUserServer), "Oculto", ""); err != nil {
			t.Fatal(err)
		}
		got, err := r.ch.PhoneContacts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []engine.PhoneContact{
			{Number: "5565955550005", Name: "5565955550005"},
			{Number: "5565966660004", Name: "Padaria Central"},
			{Number: "5565977770003", Name: "José"},
			{Number: "5565988880002", Name: "Maria do Phone"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("phone contacts %+v\nwant %+v", got, want)
		}
	})
}
