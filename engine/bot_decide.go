package engine

import (
	"strconv"
	"time"
)

// BotAbsenceRepeat is how long one absence message stands for a customer who keeps
// writing to a queue outside its hours: the absence message answers the first message
// of a burst, and again only after an attendant wrote on the ticket or this long after
// the last one (a customer writing again the next evening is told again).
const BotAbsenceRepeat = 12 * time.Hour

// BotInput is what the bot decides a customer message on.
type BotInput struct {
	// Ticket is the ticket's state right after it recorded the message.
	Ticket TicketState
	// ProviderID, Body and MediaType are the customer message's.
	ProviderID string
	Body       string
	MediaType  string
	// First: the message opened the ticket (the greeting answers it).
	First bool
	// Levels are the tenant's bot levels; empty means the first menu is QueueMenu
	// (the connection's queues), shown only when there are two or more.
	Levels    []BotLevel
	QueueMenu []BotLevel
	// Greeting is the connection's greeting message, heading the first menu.
	Greeting string
	// Queue is the queue the ticket is in or is about to enter (by QueueOf), for its
	// greeting, hours and absence message.
	QueueOf func(ID) (Queue, bool)
	Now     time.Time
	Zone    *time.Location
}

// DecideBot is the bot's answer to one customer message: the BotStep the ticket is
// to record (MessageID left for the caller to fill when Body is set), or ok false when
// the bot has nothing to say. It reads only its input: the same message on the same
// state gives the same step, so a redelivered message after a crash is answered as
// it would have been, and the ticket records it at most once (see BotStep).
func DecideBot(in BotInput) (BotStep, bool) {
	s := in.Ticket
	if s.Status != StatusPending || in.ProviderID == "" || s.BotReplyTo == in.ProviderID ||
		s.LastInbound != in.ProviderID {
		return BotStep{}, false
	}
	step := BotStep{ReplyTo: in.ProviderID, FromLevel: s.BotLevel, Level: s.BotLevel, Done: s.BotDone, At: in.Now}
	tree := in.Levels
	if len(tree) == 0 && len(in.QueueMenu) >= 2 {
		tree = in.QueueMenu
	}
	// Groups get the greeting only: every member's chatter would get the menu again.
	menuActive := len(tree) > 0 && !s.IsGroup && !s.BotDone && s.QueueID == 0 && s.UserID == 0
	if !menuActive {
		if in.First {
			step.Body = in.Greeting
			step.Done = true
		}
		if abs := in.absence(s.QueueID); abs != "" {
			step.Body, step.Absent = JoinTexts(step.Body, abs), true
		}
		return step, step.Body != ""
	}
	byID := make(map[ID]BotLevel, len(tree))
	for _, l := range tree {
		if l.ID != 0 {
			byID[l.ID] = l
		}
	}
	level := s.BotLevel
	if _, ok := byID[level]; !ok {
		level = 0 // the level was deleted meanwhile: back to the first menu
	}
	options := BotChildren(tree, level)
	if in.First || len(options) == 0 {
		step.Level, step.Body = 0, JoinTexts(in.Greeting, BotMenuText(BotChildren(tree, 0), false))
		return step, true
	}
	n, ok := ParseMenuAnswer(in.Body)
	if in.MediaType != "" {
		ok = false
	}
	if ok && n == 0 && level != 0 {
		up := byID[level].ParentID
		head := ""
		if up != 0 {
			head = byID[up].ShowMessage
		}
		step.Level, step.Body = up, JoinTexts(head, BotMenuText(BotChildren(tree, up), up != 0))
		return step, true
	}
	var chosen *BotLevel
	for i := range options {
		if ok && options[i].CommandBot == strconv.Itoa(n) {
			chosen = &options[i]
			break
		}
	}
	menu := BotMenuText(options, level != 0)
	if chosen == nil {
		step.Level, step.Body = level, BotInvalidOption+"\n\n"+menu
		return step, true
	}
	switch chosen.CommandType {
	case BotQueue:
		step.QueueID, step.Done, step.Level = chosen.QueueID, true, level
		if abs := in.absence(chosen.QueueID); abs != "" {
			step.Body, step.Absent = JoinTexts(chosen.ShowMessage, abs), true
		} else {
			q, _ := in.queue(chosen.QueueID)
			step.Body = JoinTexts(chosen.ShowMessage, q.GreetingMessage)
		}
	case BotUser:
		step.UserID, step.QueueID, step.Done, step.Level = chosen.UserID, chosen.QueueID, true, level
		step.Body = chosen.ShowMessage
	case BotMenu:
		children := BotChildren(tree, chosen.ID)
		if len(children) == 0 {
			step.Level, step.Body = level, JoinTexts(chosen.ShowMessage, menu)
			break
		}
		step.Level, step.Body = chosen.ID, JoinTexts(chosen.ShowMessage, BotMenuText(children, true))
	default: // BotMessage
		step.Level, step.Body = level, JoinTexts(chosen.ShowMessage, menu)
	}
	return step, true
}

func (in BotInput) queue(id ID) (Queue, bool) {
	if id == 0 || in.QueueOf == nil {
		return Queue{}, false
	}
	return in.QueueOf(id)
}

// absence is the absence message due for a message to queue id: the queue is closed
// now, has an absence message, and none went out within BotAbsenceRepeat on this
// ticket since an attendant last wrote.
func (in BotInput) absence(id ID) string {
	q, ok := in.queue(id)
	if !ok || q.AbsenceMessage == "" || WithinHours(q, in.Now, in.Zone) {
		return ""
	}
	if at := in.Ticket.AbsenceAt; !at.IsZero() && in.Now.Sub(at) < BotAbsenceRepeat {
		return ""
	}
	return q.AbsenceMessage
}
