package actors

import (
	"encoding/json"
	"fmt"

	"atende/engine"
)

// TicketRequest is the JSON body of a wire.Command sent to a ticket actor.
type TicketRequest struct {
	// Principal is the staff member acting; nil for commands from the system (a
	// connection actor recording inbound messages, receipts, automatic messages).
	Principal *engine.Principal `json:"principal,omitempty"`
	// Connection, when set, is the connection that sends a channel-side command; the
	// ticket refuses it with ErrInvalidTransition if the ticket now lives on another
	// connection (it was transferred), so the connection opens a new ticket.
	Connection engine.ID `json:"connection,omitempty"`
	// Command is the engine command as JSON; wire.Command.Type names it.
	Command json.RawMessage `json:"command"`
}

// TicketReply is the JSON body of a ticket actor's successful reply.
type TicketReply struct {
	// Ticket is the state after the command (its message index left out).
	Ticket engine.TicketState `json:"ticket"`
	// Position is the journal position of the last event the command appended (0 when
	// it changed nothing): wait for it before reading the read models.
	Position int64 `json:"position"`
	// Events is how many events the command appended.
	Events int `json:"events"`
	// KnowsProvider answers QueryProviderID.
	KnowsProvider bool `json:"knowsProvider,omitempty"`
}

// Ticket actor queries that are not engine commands.
const (
	// QueryTicketState returns the ticket's state without changing it.
	QueryTicketState = "ticket.state"
	// QueryProviderID asks whether the ticket already recorded the provider id in
	// the request's command ({"providerId": "…"}).
	QueryProviderID = "ticket.knows_provider_id"
)

type ticketCommandDecoder func([]byte) (engine.TicketCommand, error)

func decodeAs[C engine.TicketCommand](b []byte) (engine.TicketCommand, error) {
	var c C
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	return c, nil
}

var ticketCommands = map[string]ticketCommandDecoder{
	engine.OpenTicket{}.CommandName():           decodeAs[engine.OpenTicket],
	engine.Accept{}.CommandName():               decodeAs[engine.Accept],
	engine.Resolve{}.CommandName():              decodeAs[engine.Resolve],
	engine.Return{}.CommandName():               decodeAs[engine.Return],
	engine.Reopen{}.CommandName():               decodeAs[engine.Reopen],
	engine.Transfer{}.CommandName():             decodeAs[engine.Transfer],
	engine.Delete{}.CommandName():               decodeAs[engine.Delete],
	engine.ReceiveMessage{}.CommandName():       decodeAs[engine.ReceiveMessage],
	engine.SendMessage{}.CommandName():          decodeAs[engine.SendMessage],
	engine.SendAutomaticMessage{}.CommandName(): decodeAs[engine.SendAutomaticMessage],
	engine.AddWhisper{}.CommandName():           decodeAs[engine.AddWhisper],
	engine.AckMessage{}.CommandName():           decodeAs[engine.AckMessage],
	engine.DeleteMessage{}.CommandName():        decodeAs[engine.DeleteMessage],
	engine.RevokeMessage{}.CommandName():        decodeAs[engine.RevokeMessage],
	engine.FailMessage{}.CommandName():          decodeAs[engine.FailMessage],
	engine.MarkRead{}.CommandName():             decodeAs[engine.MarkRead],
	engine.SetTags{}.CommandName():              decodeAs[engine.SetTags],
	engine.AskRating{}.CommandName():            decodeAs[engine.AskRating],
	engine.BotStep{}.CommandName():              decodeAs[engine.BotStep],
	engine.Invite{}.CommandName():               decodeAs[engine.Invite],
	engine.AcceptInvite{}.CommandName():         decodeAs[engine.AcceptInvite],
	engine.DeclineInvite{}.CommandName():        decodeAs[engine.DeclineInvite],
	engine.TranslateMessage{}.CommandName():     decodeAs[engine.TranslateMessage],
}

// DecodeTicketCommand turns a wire command's type and JSON back into the engine
// command it carries.
func DecodeTicketCommand(typ string, data []byte) (engine.TicketCommand, error) {
	dec, ok := ticketCommands[typ]
	if !ok {
		return nil, fmt.Errorf("unknown ticket command %q", typ)
	}
	if len(data) == 0 {
		data = []byte("{}")
	}
	cmd, err := dec(data)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", typ, err)
	}
	return cmd, nil
}
