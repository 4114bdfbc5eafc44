// Package visibilitytest generates the principals, ticket queries and tickets over
// which the copies of engine.SeesTicket are held equal to it: the read model's SQL
// scopes (persistence/readmodel) and the web's twin (through the golden file the
// engine tests write). Every profile, several queue sets, assigned and unassigned
// tickets of each status, with and without unread messages, and every combination of
// the list filters that ask who holds a ticket.
package visibilitytest

import "atende/engine"

// Queues are the queue ids the cases use (0: no queue).
var Queues = []engine.ID{0, 10, 20, 30}

// Principals are users 1 and 2 of company, under every profile, with no queue, queue
// 10, and queues 10 and 20.
func Principals(company engine.ID) []engine.Principal {
	var out []engine.Principal
	for _, profile := range engine.Profiles() {
		for _, queues := range [][]engine.ID{nil, {10}, {10, 20}} {
			for _, user := range []engine.ID{1, 2} {
				out = append(out, engine.Principal{UserID: user, CompanyID: company, Profile: profile, QueueIDs: queues})
			}
		}
	}
	return out
}

// Queries are every combination of status (all, open, pending, closed), ShowAll,
// queue checkboxes (none, 10, 20 and 30), attendant filter (none, user 1, users 2
// and 3) and WithUnreadMessages.
func Queries() []engine.TicketQuery {
	var out []engine.TicketQuery
	for _, status := range []string{"", engine.StatusOpen, engine.StatusPending, engine.StatusClosed} {
		for _, showAll := range []bool{false, true} {
			for _, queues := range [][]engine.ID{nil, {10}, {20, 30}} {
				for _, users := range [][]engine.ID{nil, {1}, {2, 3}} {
					for _, unread := range []bool{false, true} {
						out = append(out, engine.TicketQuery{Status: status, ShowAll: showAll, QueueIDs: queues,
							UserIDs: users, WithUnreadMessages: unread})
					}
				}
			}
		}
	}
	return out
}

// Tickets are the tickets of company 1 the engine can produce, ids from 1: in each of
// Queues, pending (no user), open with user 1, 2 or 3, closed by user 1 or 3; those
// not closed with and without an unread message; and the same holders other than
// user 1 with user 1 as a guest.
func Tickets() []engine.Ticket {
	holders := []struct {
		status string
		user   engine.ID
	}{
		{engine.StatusPending, 0},
		{engine.StatusOpen, 1}, {engine.StatusOpen, 2}, {engine.StatusOpen, 3},
		{engine.StatusClosed, 1}, {engine.StatusClosed, 3},
	}
	var out []engine.Ticket
	for _, q := range Queues {
		for _, h := range holders {
			for _, unread := range []int{0, 1} {
				if unread > 0 && h.status == engine.StatusClosed {
					continue
				}
				out = append(out, engine.Ticket{ID: engine.ID(len(out) + 1), CompanyID: 1, Status: h.status,
					QueueID: q, UserID: h.user, UnreadMessages: unread})
			}
		}
	}
	// User 1 as a guest (an accepted invitation) of tickets held by another or by
	// nobody, in every status and queue.
	for _, q := range Queues {
		for _, h := range holders {
			if h.user == 1 {
				continue
			}
			unread := 1 // so that the unread filter meets guests too
			if h.status == engine.StatusClosed {
				unread = 0
			}
			out = append(out, engine.Ticket{ID: engine.ID(len(out) + 1), CompanyID: 1, Status: h.status,
				QueueID: q, UserID: h.user, UnreadMessages: unread, Guests: []engine.ID{1}})
		}
	}
	return out
}
