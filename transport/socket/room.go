package socket

import (
	"fmt"
	"strconv"
)

// RoomKind says what a room groups sockets by.
type RoomKind uint8

// Room kinds. Company and User rooms are joined on connect and never left; the others
// are joined by client events and authorised by the Authorizer.
const (
	// RoomCompany holds every socket of the tenant: events for everyone (whatsapp,
	// whatsappSession, contact…). ID is empty.
	RoomCompany RoomKind = iota + 1
	// RoomUser holds one user's sockets (invitation, a user's own notices). ID is the
	// user id in decimal.
	RoomUser
	// RoomChatBox holds the sockets showing one ticket: joinChatBox(ticketId). ID is
	// the ticket id in decimal.
	RoomChatBox
	// RoomTickets holds the sockets showing one ticket list tab: joinTickets(status).
	// ID is open, pending or closed.
	RoomTickets
	// RoomNotification holds the sockets that show notifications: joinNotification.
	// ID is empty.
	RoomNotification
)

func (k RoomKind) String() string {
	switch k {
	case RoomCompany:
		return "company"
	case RoomUser:
		return "user"
	case RoomChatBox:
		return "chatBox"
	case RoomTickets:
		return "tickets"
	case RoomNotification:
		return "notification"
	}
	return fmt.Sprintf("RoomKind(%d)", uint8(k))
}

// Room names a room within one tenant. It is comparable; the hub keys its rooms by
// (tenant, Room), so two tenants can never share a room whatever the ID.
type Room struct {
	Kind RoomKind
	ID   string
}

// CompanyRoom is the tenant-wide room.
func CompanyRoom() Room { return Room{Kind: RoomCompany} }

// UserRoom is the room of one user's sockets.
func UserRoom(userID int64) Room {
	return Room{Kind: RoomUser, ID: strconv.FormatInt(userID, 10)}
}

// ChatBoxRoom is the room of the sockets showing ticket ticketID.
func ChatBoxRoom(ticketID int64) Room {
	return Room{Kind: RoomChatBox, ID: strconv.FormatInt(ticketID, 10)}
}

// TicketsRoom is the room of a ticket list tab: open, pending or closed. A known
// status is kept as the constant, not as the caller's string (one a client's
// packet allocated), so that the sockets in a tab share it.
func TicketsRoom(status string) Room {
	for _, st := range [...]string{"open", "pending", "closed"} {
		if status == st {
			return Room{Kind: RoomTickets, ID: st}
		}
	}
	return Room{Kind: RoomTickets, ID: status}
}

// NotificationRoom is the room of the sockets showing notifications.
func NotificationRoom() Room { return Room{Kind: RoomNotification} }

// Valid reports whether r is well formed: a known kind with the ID it needs.
func (r Room) Valid() bool {
	switch r.Kind {
	case RoomCompany, RoomNotification:
		return r.ID == ""
	case RoomUser, RoomChatBox:
		_, ok := parseID(r.ID)
		return ok
	case RoomTickets:
		return validStatus(r.ID)
	}
	return false
}

// String is "chatBox:42", "tickets:open", "company"…
func (r Room) String() string {
	if r.ID == "" {
		return r.Kind.String()
	}
	return r.Kind.String() + ":" + r.ID
}

// Key is the room's tenant-scoped name, "t<tenant>/chatBox:42": the form shared
// backlogs and logs use. Two tenants never produce the same key.
func (r Room) Key(tenant int64) string {
	return "t" + strconv.FormatInt(tenant, 10) + "/" + r.String()
}

// Ticket statuses a joinTickets may name.
func validStatus(s string) bool {
	return s == "open" || s == "pending" || s == "closed"
}

// parseID parses a canonical positive decimal id below 2^53.
func parseID(s string) (int64, bool) {
	if s == "" || len(s) > 16 || s[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > 1<<53-1 {
		return 0, false
	}
	return n, true
}
