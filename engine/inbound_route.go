package engine

import "time"

// A connection routes each inbound message of a customer to that customer's current
// ticket, opening one when there is none or when the current one refuses the message
// (it was resolved, deleted or moved to another connection). A provider may deliver a
// message again long after it was stored — after its ticket closed, or after the
// customer's next ticket opened — and such a redelivery must not be stored twice.
//
// RouteInbound is that routing decision, as DecideTicket is a ticket's: it takes what
// the connection knows at one moment and returns the next effect for the connection
// to carry out (ask the durable record, acknowledge, open, deliver, give up). It reads
// nothing and changes nothing; the connection actor runs the effects — the ones that
// wait on a store off its mailbox — feeds what it learned back in, and asks again.

// InboundRoute is what a connection knows, at one moment, of one inbound message on
// its way to its ticket.
type InboundRoute struct {
	// Ticket is the customer's current ticket as the connection knows it (0: none).
	Ticket ID
	// Opened is the ticket this message's own handling opened (0: none): the message
	// is new to it, so no redelivery check is needed there.
	Opened ID
	// At is when the customer sent the message (zero: the channel did not say).
	At time.Time
	// Since is when Ticket opened, as far as the connection knows (SinceTicket names
	// the ticket that time belongs to; 0: unknown).
	SinceTicket ID
	Since       time.Time
	// Locator reports whether the connection can ask a durable record where a
	// provider id is stored; without one, nothing is found and nothing is asked.
	Locator bool
	// Stored is that record's answer for this message's provider id, once asked.
	Stored Stored
	// Refused is the ticket that refused this message just now (0: none), and
	// Refusals how many refusals this message met so far, that one included.
	Refused  ID
	Refusals int
}

// Stored is the durable record's answer for an inbound message's provider id: Asked
// once asked; Found, on Ticket, when the message is already stored.
type Stored struct {
	Asked, Found bool
	Ticket       ID
}

// InboundEffect is what the connection does next with an inbound message.
type InboundEffect int

const (
	// RouteAskStored: ask the durable record where the message's provider id is
	// stored (InboundRoute.Stored), then route again.
	RouteAskStored InboundEffect = iota + 1
	// RouteAcknowledge: the message is already stored on another ticket (a
	// provider's late redelivery); acknowledge it without storing it again.
	RouteAcknowledge
	// RouteOpen: claim the customer's guard from Prev (0: none) for a new ticket,
	// open it with the message as its first, and route the message there.
	RouteOpen
	// RouteDeliver: hand the message to Ticket.
	RouteDeliver
	// RouteGiveUp: the last refusal stands; tell the channel.
	RouteGiveUp
)

// MaxInboundRefusals is how many refusals one inbound message may meet (each makes
// way for the customer's next ticket) before its last refusal is answered to the
// channel, which retries later.
const MaxInboundRefusals = 2

// InboundDecision is RouteInbound's answer: the effect, with the ticket it concerns
// (RouteDeliver) or the ticket a new one replaces in the guard (RouteOpen).
type InboundDecision struct {
	Effect InboundEffect
	Ticket ID
	Prev   ID
}

// RouteInbound decides the next step of an inbound message.
//
// A message goes to the current ticket. When there is none, or when the message may
// predate it (sent before it opened, or the connection does not know when it opened),
// the durable record is asked first: a message stored on another ticket is a
// redelivery and is only acknowledged. A refusal by the current ticket opens its
// successor (after the same check); a refusal by a ticket that is no longer the
// current one — another message opened the successor meanwhile — sends the message
// on to the current one. After MaxInboundRefusals the refusal stands.
func RouteInbound(r InboundRoute) InboundDecision {
	stored := r.Stored
	if !r.Locator {
		stored = Stored{Asked: true}
	}
	if r.Refused != 0 {
		if r.Refusals > MaxInboundRefusals {
			return InboundDecision{Effect: RouteGiveUp, Ticket: r.Refused}
		}
		if r.Refused == r.Ticket {
			// The first refusal of the current ticket opens its successor.
			switch {
			case !stored.Asked:
				return InboundDecision{Effect: RouteAskStored}
			case stored.Found:
				return InboundDecision{Effect: RouteAcknowledge, Ticket: stored.Ticket}
			}
			return InboundDecision{Effect: RouteOpen, Prev: r.Ticket}
		}
	}
	tid := r.Ticket
	if tid == 0 || (r.Opened != tid && r.mayBeLate()) {
		switch {
		case !stored.Asked:
			return InboundDecision{Effect: RouteAskStored}
		case stored.Found && stored.Ticket != tid:
			// Stored on the current ticket itself, the ticket de-duplicates it.
			return InboundDecision{Effect: RouteAcknowledge, Ticket: stored.Ticket}
		}
	}
	if tid == 0 {
		return InboundDecision{Effect: RouteOpen}
	}
	return InboundDecision{Effect: RouteDeliver, Ticket: tid}
}

// mayBeLate reports whether the message could predate the current ticket — or the
// connection does not know when that ticket opened — so that it may be a redelivery
// of a message stored on an earlier ticket.
func (r InboundRoute) mayBeLate() bool {
	if !r.Locator || r.At.IsZero() {
		return false
	}
	return r.SinceTicket != r.Ticket || r.At.Before(r.Since)
}
