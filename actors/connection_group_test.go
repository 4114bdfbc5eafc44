package actors

import (
	"context"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// A group creation goes through the connection actor: a channel that cannot create
// groups answers ERR_GROUPS_NOT_SUPPORTED, another tenant's connection
// ERR_NO_WAPP_FOUND, a request without key ERR_VALIDATION. (The WhatsApp creation
// itself is tested against the wire fake, transport/channel/whatsapp/fakewa.)
func TestCreateGroupThroughTheActor(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d)
		conn, _ := r.startConnection(t, engine.ConnectionInput{Name: "Vendas", Channel: engine.ChannelSocket, IsDefault: true})
		ctx := context.Background()
		c := Connections{Node: r.node}
		req := engine.GroupRequest{Key: "k", Name: "Turma 001", Admins: []string{"5511999990001"}}
		if _, err := c.CreateGroup(ctx, conn.CompanyID, conn.ID, req); engine.CodeOf(err) != engine.ErrGroupsNotSupported {
			t.Fatalf("socket channel: %v", err)
		}
		if _, err := c.CreateGroup(ctx, conn.CompanyID+1, conn.ID, req); engine.CodeOf(err) != engine.ErrNoWappFound {
			t.Fatalf("other tenant: %v", err)
		}
		if _, err := c.CreateGroup(ctx, conn.CompanyID, conn.ID, engine.GroupRequest{Name: "x"}); engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("no key: %v", err)
		}
	})
}
