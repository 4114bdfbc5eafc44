package engine

import (
	"context"
	"slices"
	"time"
)

// The wait panel and attendance radar (GET /supervision/waitpanel, /waitpanel in the
// web app): a snapshot of a tenant's queues for supervisors. Read from the ticket read
// model (per-cell counters and the status/queue index) and the shared presence, so it
// costs the same with a thousand tickets or a million.
//
// A pending ticket waits since its UpdatedAt: the time it entered pending (opened,
// returned, transferred into a queue) or the customer's latest message, the same
// instant the ticket list's age badge counts from.

// WaitPanelWaitingLimit bounds WaitPanel.Waiting.
const WaitPanelWaitingLimit = 50

// WaitPanelAttendantLimit bounds WaitPanel.Attendants (by name).
const WaitPanelAttendantLimit = 500

// WaitPanel is the snapshot.
type WaitPanel struct {
	// Queues are the tenant's queues by name, then "no queue" (ID 0) when it holds
	// pending or open tickets.
	Queues []WaitPanelQueue `json:"queues"`
	// Attendants are the tenant's users by name, with their open tickets and presence.
	Attendants []WaitPanelAttendant `json:"attendants"`
	// Waiting are the pending tickets that have waited longest, longest first.
	Waiting []WaitPanelTicket `json:"waiting"`
	// Pending and Open count the tenant's tickets in those statuses.
	Pending int `json:"pending"`
	Open    int `json:"open"`
	// At is when the snapshot was read (server clock), so that a client can count
	// waits with its own clock's offset removed.
	At time.Time `json:"at"`
}

// WaitPanelQueue is one queue of the panel.
type WaitPanelQueue struct {
	ID      ID     `json:"id"`
	Name    string `json:"name"`
	Color   string `json:"color"`
	Pending int    `json:"pending"`
	Open    int    `json:"open"`
	// LongestWait is the queue's pending ticket that has waited longest; nil when
	// nothing is pending.
	LongestWait *WaitPanelTicket `json:"longestWait"`
	// Online are the ids of the queue's users online, ascending.
	Online []ID `json:"online"`
}

// WaitPanelAttendant is one user of the radar.
type WaitPanelAttendant struct {
	ID       ID     `json:"id"`
	Name     string `json:"name"`
	Profile  string `json:"profile"`
	QueueIDs []ID   `json:"queueIds"`
	// Open counts the tickets open with the user.
	Open        int        `json:"open"`
	Online      bool       `json:"online"`
	OnlineSince *time.Time `json:"onlineSince,omitempty"`
}

// WaitPanelTicket is one pending ticket.
type WaitPanelTicket struct {
	ID             ID        `json:"id"`
	QueueID        ID        `json:"queueId"`
	ContactName    string    `json:"contactName"`
	Channel        string    `json:"channel"`
	UnreadMessages int       `json:"unreadMessages"`
	WaitingSince   time.Time `json:"waitingSince"`
}

// WaitPanelQueries reads the ticket side of the snapshot (everything but presence)
// for one tenant. persistence/readmodel implements it.
type WaitPanelQueries interface {
	WaitPanel(ctx context.Context, companyID ID) (WaitPanel, error)
}

// AddPresence marks the attendants online from entries (engine.Presence.Online of the
// same tenant) and fills each queue's Online with the users online in it (the queues
// of their socket's session). Users online but beyond the attendant list are counted
// in their queues all the same.
func (w *WaitPanel) AddPresence(entries []PresenceEntry) {
	byUser := make(map[ID]PresenceEntry, len(entries))
	for _, e := range entries {
		byUser[e.UserID] = e
	}
	for i := range w.Attendants {
		a := &w.Attendants[i]
		if e, ok := byUser[a.ID]; ok {
			since := e.Since.UTC()
			a.Online, a.OnlineSince = true, &since
		}
	}
	for i := range w.Queues {
		q := &w.Queues[i]
		q.Online = []ID{}
		if q.ID == 0 {
			continue
		}
		for _, e := range entries {
			if slices.Contains(e.QueueIDs, q.ID) {
				q.Online = append(q.Online, e.UserID)
			}
		}
		slices.Sort(q.Online)
	}
}
