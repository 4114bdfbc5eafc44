package engine

// RecordedTicketEvent is a ticket event as read back from the journal: the stream
// version it was stored at (1 for the first event) and the event.
type RecordedTicketEvent struct {
	Version int64
	Event   TicketEvent
}

// NameLookup resolves the names the history shows. It is called only for non-zero
// ids; an id it does not know may answer "" (a deleted user, say).
type NameLookup interface {
	UserName(id ID) string
	QueueName(id ID) string
}

// MapNames is a NameLookup over two maps.
type MapNames struct {
	Users  map[ID]string
	Queues map[ID]string
}

// UserName looks id up in Users.
func (m MapNames) UserName(id ID) string { return m.Users[id] }

// QueueName looks id up in Queues.
func (m MapNames) QueueName(id ID) string { return m.Queues[id] }

// History actions: stable strings stored in and shown by the history (the web app
// translates them).
const (
	HistoryCreate   = "create"
	HistoryAccept   = "accept"
	HistoryResolve  = "resolve"
	HistoryReturn   = "return"
	HistoryReopen   = "reopen"
	HistoryTransfer = "transfer"
	HistoryDelete   = "delete"
	// Invitations (ticket_invite.go): old user the inviter, new user the invitee.
	HistoryInvite        = "invite"
	HistoryInviteAccept  = "invite_accept"
	HistoryInviteDecline = "invite_decline"
)

// TicketHistory builds the audit history (spec section 3) of a ticket from its events,
// one entry per lifecycle event, in the order given; message, ack, read and tag events
// are not part of it. Each lifecycle event carries the users and queues it needs, so
// any slice of the stream can be shown. The entry id is the event's stream version and
// its time the event's. For actions that do not move the ticket the old and new names
// are the same (a resolve shows who held it, in which queue); accept and reopen show
// the previous holder ("" when there was none) and the new one; return shows the
// holder and "".
func TicketHistory(events []RecordedTicketEvent, names NameLookup) []HistoryEntry {
	if names == nil {
		names = MapNames{}
	}
	user := func(id ID) string {
		if id == 0 {
			return ""
		}
		return names.UserName(id)
	}
	queue := func(id ID) string {
		if id == 0 {
			return ""
		}
		return names.QueueName(id)
	}
	out := make([]HistoryEntry, 0, len(events))
	for _, r := range events {
		var (
			action     string
			fromU, toU ID
			fromQ, toQ ID
		)
		switch e := r.Event.(type) {
		case TicketOpened:
			action, toU, toQ = HistoryCreate, e.UserID, e.QueueID
		case TicketAccepted:
			action, toU, fromQ, toQ = HistoryAccept, e.UserID, e.QueueID, e.QueueID
		case TicketResolved:
			action, fromU, toU, fromQ, toQ = HistoryResolve, e.UserID, e.UserID, e.QueueID, e.QueueID
		case TicketReturned:
			action, fromU, fromQ, toQ = HistoryReturn, e.FromUserID, e.QueueID, e.QueueID
		case TicketReopened:
			action, fromU, toU, fromQ, toQ = HistoryReopen, e.FromUserID, e.ToUserID, e.QueueID, e.QueueID
		case TicketTransferred:
			action, fromU, toU, fromQ, toQ = HistoryTransfer, e.FromUserID, e.ToUserID, e.FromQueueID, e.ToQueueID
		case TicketDeleted:
			action, fromU, toU, fromQ, toQ = HistoryDelete, e.UserID, e.UserID, e.QueueID, e.QueueID
		case TicketInvited:
			action, fromU, toU = HistoryInvite, e.ByUserID, e.UserID
		case TicketInviteAccepted:
			action, fromU, toU = HistoryInviteAccept, e.ByUserID, e.UserID
		case TicketInviteDeclined:
			action, fromU, toU = HistoryInviteDecline, e.ByUserID, e.UserID
		default:
			continue
		}
		out = append(out, HistoryEntry{
			ID:           r.Version,
			CreatedAt:    r.Event.OccurredAt(),
			OldUserName:  user(fromU),
			NewUserName:  user(toU),
			Action:       action,
			OldQueueName: queue(fromQ),
			NewQueueName: queue(toQ),
		})
	}
	return out
}
