package actors

import (
	"encoding/json"
	"strconv"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"atende/actors/wire"
	"atende/engine"
)

// DispatchToConnections is the ticket actors' Dispatch hook: it hands every message
// to send (attendant replies, greetings, farewells) to the ticket's connection actor,
// and asks that connection for its farewell when a ticket is resolved. Messages that
// came from the channel's own app (they carry a provider id) are already sent.
//
// Fire-and-forget: a connection that is unreachable now finds unsent messages again
// when it starts (their ack stays 0).
func DispatchToConnections(ctx actor.Context, st engine.TicketState, events []engine.TicketEvent) {
	send := func(typ string, req DeliverRequest) {
		pid := cluster.GetCluster(ctx.ActorSystem()).Get(strconv.FormatInt(st.ConnectionID, 10), KindConnection)
		if pid == nil {
			return
		}
		body, _ := json.Marshal(req)
		ctx.Send(pid, &wire.Command{Type: typ, Payload: body, CompanyId: st.CompanyID})
	}
	for _, ev := range events {
		switch e := ev.(type) {
		case engine.TicketMessageSent:
			if e.ProviderID != "" {
				continue
			}
			send(CmdConnectionDeliver, DeliverRequest{TicketID: st.ID, MessageID: e.MessageID, ContactID: st.ContactID,
				Body: e.Body, MediaType: e.MediaType, MediaURL: e.MediaURL, QuotedID: e.QuotedID})
		case engine.TicketResolved:
			send(CmdConnectionFarewell, DeliverRequest{TicketID: st.ID, ContactID: st.ContactID, QueueID: st.QueueID,
				IsGroup: st.IsGroup})
		}
	}
}
