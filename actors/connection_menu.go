package actors

import (
	"strconv"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"atende/engine"
)

// Automatic texts of the queue menu (pt-BR, like the other texts the server writes).
const (
	menuInvalidOption = "Opção inválida. Por favor, responda com o número de uma das opções:"
)

// queueMenu is the numbered list of the connection's queues ("1 - Vendas" a line),
// empty when the connection has fewer than two queues (one queue is assigned without
// asking).
func (a *connActor) queueMenu() string {
	if len(a.conn.Queues) < 2 {
		return ""
	}
	var b strings.Builder
	for i, q := range a.conn.Queues {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(" - ")
		b.WriteString(q.Name)
	}
	return b.String()
}

// greeting is the text greeting a new ticket of a customer: the connection's greeting
// message followed by the queue menu when the connection has several queues.
func (a *connActor) greeting() string {
	menu := a.queueMenu()
	switch {
	case menu == "":
		return a.conn.GreetingMessage
	case strings.TrimSpace(a.conn.GreetingMessage) == "":
		return menu
	}
	return a.conn.GreetingMessage + "\n\n" + menu
}

// menuChoice parses a customer's answer to the queue menu: the option number n in
// 1..options (surrounding blanks and a trailing period or parenthesis allowed).
func menuChoice(body string, options int) (int, bool) {
	s := strings.TrimRight(strings.TrimSpace(body), ".)")
	if s == "" || len(s) > 3 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > options || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	return n, true
}

// queueChoice answers a customer message that a pending ticket without a queue
// recorded, on a connection with several queues: a valid option moves the ticket to
// that queue (a system transfer); anything else sends the menu again — once per
// customer message, as the caller calls it only for a message newly recorded.
func (a *connActor) queueChoice(ctx actor.Context, st engine.TicketState, m engine.InboundMessage) {
	// Groups are left alone: every member's chatter would get the menu again.
	if len(a.conn.Queues) < 2 || st.Status != engine.StatusPending || st.QueueID != 0 || st.IsGroup || m.From.IsGroup {
		return
	}
	n, ok := menuChoice(m.Body, len(a.conn.Queues))
	if !ok {
		a.sendAutomatic(ctx, st.ID, menuInvalidOption+"\n\n"+a.queueMenu(), "")
		return
	}
	queue := a.conn.Queues[n-1].ID
	f, err := a.ticketFuture(ctx, st.ID, engine.Transfer{QueueID: queue})
	if err != nil {
		a.log.Warn().Err(err).Int64("ticket_id", st.ID).Msg("queue choice")
		return
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		if _, err := ticketResult(res, ferr); err != nil {
			a.log.Warn().Err(err).Int64("ticket_id", st.ID).Int64("queue_id", queue).Msg("queue choice refused")
		}
	})
}
