package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"atende/engine"
)

// historyChunk is how many events one journal read of the history fetches.
const historyChunk = 500

// lifecycleEvents are the ticket event types the history shows; the others (messages,
// acks, reads, tags) are skipped without being decoded.
var lifecycleEvents = map[string]bool{
	engine.EvTicketOpened:      true,
	engine.EvTicketAccepted:    true,
	engine.EvTicketResolved:    true,
	engine.EvTicketReturned:    true,
	engine.EvTicketReopened:    true,
	engine.EvTicketTransferred: true,
	engine.EvTicketDeleted:     true,
	// Invitations and their answers (engine/ticket_invite.go).
	engine.EvTicketInvited:        true,
	engine.EvTicketInviteAccepted: true,
	engine.EvTicketInviteDeclined: true,
}

// ticketStream is the journal stream of a ticket (the actors' naming).
func ticketStream(id engine.ID) string { return "ticket/" + strconv.FormatInt(id, 10) }

// ticketHistory: POST /tickets/{id} → the ticket's history, oldest first:
// [{id, createdAt, oldusername, newusername, action, oldqueuename, newqueuename}],
// built from the ticket's events in the journal (engine.TicketHistory). Any member of
// staff of the tenant may read it, as they may read the ticket. A ticket of another
// tenant, one that never existed and one that was deleted are ERR_NO_TICKET_FOUND.
// Names are today's names of the users and queues involved ("" for deleted ones).
func (s *Server) ticketHistory(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	events, err := s.lifecycle(r.Context(), p, id)
	if err != nil {
		return err
	}
	names := &historyNames{s: s, r: r, company: p.CompanyID,
		users: map[engine.ID]string{}, queues: map[engine.ID]string{}}
	writeJSON(w, http.StatusOK, engine.TicketHistory(events, names))
	return nil
}

// lifecycle reads the lifecycle events of ticket id, checking it is a live ticket of
// p's tenant.
func (s *Server) lifecycle(ctx context.Context, p engine.Principal, id engine.ID) ([]engine.RecordedTicketEvent, error) {
	stream := ticketStream(id)
	notFound := engine.Wrap(engine.ErrNoTicketFound, fmt.Errorf("history: no ticket %d in company %d", id, p.CompanyID))
	var out []engine.RecordedTicketEvent
	from := int64(1)
	for {
		recs, err := s.deps.Journal.ReadStream(ctx, stream, from, historyChunk)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", stream, err)
		}
		for _, rec := range recs {
			if rec.CompanyID != p.CompanyID {
				return nil, notFound
			}
			if !lifecycleEvents[rec.Type] {
				continue
			}
			ev, err := engine.DecodeTicketEvent(rec.Type, rec.Data)
			if err != nil {
				return nil, fmt.Errorf("history of ticket %d: %w", id, err)
			}
			if _, deleted := ev.(engine.TicketDeleted); deleted {
				return nil, notFound
			}
			out = append(out, engine.RecordedTicketEvent{Version: rec.Version, Event: ev})
		}
		if len(recs) < historyChunk {
			break
		}
		from = recs[len(recs)-1].Version + 1
	}
	if len(out) == 0 {
		return nil, notFound
	}
	return out, nil
}

// historyNames is the engine.NameLookup of one history: users and queues of one
// tenant, each looked up once. A lookup that fails gives "" (logged unless the row is
// simply gone).
type historyNames struct {
	s       *Server
	r       *http.Request
	company engine.ID
	users   map[engine.ID]string
	queues  map[engine.ID]string
}

func (n *historyNames) UserName(id engine.ID) string {
	if name, ok := n.users[id]; ok {
		return name
	}
	u, err := n.s.deps.Users.Get(n.r.Context(), n.company, id)
	n.logFailure(err, "user", id)
	n.users[id] = u.Name
	return u.Name
}

func (n *historyNames) QueueName(id engine.ID) string {
	if name, ok := n.queues[id]; ok {
		return name
	}
	if n.s.deps.Queues == nil {
		return ""
	}
	q, err := n.s.deps.Queues.Get(n.r.Context(), n.company, id)
	n.logFailure(err, "queue", id)
	n.queues[id] = q.Name
	return q.Name
}

func (n *historyNames) logFailure(err error, what string, id engine.ID) {
	var e *engine.Error
	if err == nil || errors.As(err, &e) && e.Code.HTTPStatus() == http.StatusNotFound {
		return
	}
	n.s.reqLog(n.r).Warn().Err(err).Str("kind", what).Int64("id", id).Msg("history: name lookup failed")
}
