package seed

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"atende/engine"
)

// Sample conversations: a demo inbox that is not empty. Each conversation is a ticket
// written the way the product writes one: the connection's ticket guard is claimed
// for the contact first (as the connection actor does before it opens a ticket), then
// every step is judged by engine.DecideTicket on the state folded so far and the
// resulting events are appended to the ticket's journal stream in one append, from
// version 0 (as the ticket actor does). The projections fold them into the read
// models like any other ticket once the server runs.
//
// A conversation is identified by its connection and contact: one whose guard already
// names a ticket with events is left alone, so a second seed adds nothing. A claimed
// guard whose ticket was never written (an append that failed) is claimed again.

// ConversationDeps are what the sample conversations are written through. The step
// runs only when Journal is set.
type ConversationDeps struct {
	Journal engine.Journal
	IDs     engine.IDAllocator
	Guard   engine.TicketGuard
	// Clock places the conversations in the recent past; nil is the wall clock.
	Clock engine.Clock
}

// DemoTelegramName names the demo tenant's Telegram connection. It has no bot token,
// so it stays disconnected: its conversations show a second channel in the inbox.
const DemoTelegramName = "Telegram da loja"

// demoConversation is one sample ticket: who, where, its messages and where it ends.
type demoConversation struct {
	channel string // the connection's channel: ChannelSocket or ChannelTelegram
	number  string // contact number as the channel writes it
	name    string
	queue   string // queue name
	// user (an e-mail) accepts the ticket after the customer's first message; empty
	// leaves it pending.
	user     string
	resolved bool   // closed by user at the end, followed by the connection's farewell
	ago      string // how long before now the conversation started
	lines    []line
}

// line is one message: from the customer (fromCustomer) or the attendant (who reads
// the chat before answering), after a pause from the previous one.
type line struct {
	fromCustomer bool
	after        time.Duration
	body         string
}

func customer(after time.Duration, body string) line {
	return line{fromCustomer: true, after: after, body: body}
}

func attendant(after time.Duration, body string) line {
	return line{after: after, body: body}
}

// DemoConversations is how many sample conversations the seed writes.
func DemoConversations() int { return len(demoConversations) }

var demoConversations = []demoConversation{
	{channel: engine.ChannelSocket, number: "webchat:demo-mariana", name: "Mariana Costa", queue: "Atendimento", ago: "14m",
		lines: []line{
			customer(0, "Boa tarde! Vocês entregam em Várzea Grande?"),
			customer(40*time.Second, "Queria saber o prazo para um pedido de 3 caixas."),
		}},
	{channel: engine.ChannelSocket, number: "webchat:demo-claudia", name: "Cláudia Nogueira", queue: "Atendimento", ago: "3m",
		lines: []line{
			customer(0, "Oi! O boleto da minha fatura venceu ontem."),
			customer(20*time.Second, "Consigo pagar com juros pelo PIX?"),
		}},
	{channel: engine.ChannelSocket, number: "webchat:demo-ricardo", name: "Ricardo Alves", queue: "Atendimento",
		user: "ana@atende.local", ago: "47m",
		lines: []line{
			customer(0, "Olá, fiz um pedido ontem e ainda não recebi o código de rastreio."),
			attendant(3*time.Minute, "Olá, Ricardo! Aqui é a Ana. Pode me informar o número do pedido?"),
			customer(2*time.Minute, "É o pedido 48213."),
			attendant(4*time.Minute, "Obrigada! Ele foi despachado hoje de manhã; o código de rastreio é BR482130765MT."),
			customer(6*time.Minute, "Perfeito, muito obrigado!"),
		}},
	{channel: engine.ChannelSocket, number: "webchat:demo-sofia", name: "Sofia Mendes", queue: "Atendimento",
		user: "ana@atende.local", resolved: true, ago: "26h",
		lines: []line{
			customer(0, "Vocês emitem nota fiscal para pessoa jurídica?"),
			attendant(5*time.Minute, "Emitimos, sim! Basta informar o CNPJ e a razão social no pedido."),
			customer(3*time.Minute, "Ótimo, vou fazer o pedido agora. Obrigada!"),
		}},
	{channel: engine.ChannelTelegram, number: "tg:700100301", name: "Pedro Henrique", queue: "Suporte", ago: "6m",
		lines: []line{
			customer(0, "O aplicativo não abre depois da atualização. Aparece \"erro 503\"."),
			customer(time.Minute, "Já tentei reinstalar e continua igual."),
		}},
	{channel: engine.ChannelTelegram, number: "tg:700100302", name: "Larissa Fernandes", queue: "Suporte",
		user: "bruno@atende.local", ago: "2h",
		lines: []line{
			customer(0, "Esqueci minha senha e o e-mail de recuperação não chega."),
			attendant(8*time.Minute, "Oi, Larissa! Sou o Bruno, do Suporte. Você verificou a caixa de spam?"),
			customer(5*time.Minute, "Verifiquei, não está lá."),
			attendant(2*time.Minute, "Certo, vou gerar um novo link manualmente. Só um momento, por favor."),
		}},
	{channel: engine.ChannelTelegram, number: "tg:700100303", name: "Gustavo Ramos", queue: "Suporte",
		user: "bruno@atende.local", resolved: true, ago: "50h",
		lines: []line{
			customer(0, "Como faço para trocar o e-mail da minha conta?"),
			attendant(10*time.Minute, "Em Perfil > Dados da conta, toque em \"Alterar e-mail\" e confirme pelo link que enviaremos."),
			customer(4*time.Minute, "Deu certo. Valeu!"),
		}},
}

// seedTelegram gives the demo tenant a Telegram connection (no bot token) serving
// the Suporte queue, when the conversations are seeded.
func seedTelegram(ctx context.Context, d Deps) error {
	if d.Conversations.Journal == nil || d.Connections == nil {
		return nil
	}
	conns, err := d.Connections.List(ctx, DemoCompanyID)
	if err != nil {
		return err
	}
	for _, c := range conns {
		if c.Channel == engine.ChannelTelegram {
			return nil
		}
	}
	in := engine.ConnectionInput{Name: DemoTelegramName, Channel: engine.ChannelTelegram,
		GreetingMessage: "Olá! Este é o Suporte da Atende Demo no Telegram. Descreva o problema, por favor.",
		FarewellMessage: "Atendimento encerrado. Obrigado por falar com o Suporte!"}
	if d.Queues != nil {
		if id, ok, err := queueByName(ctx, d, "Suporte"); err != nil {
			return err
		} else if ok {
			in.QueueIDs = []engine.ID{id}
		}
	}
	c, err := d.Connections.Create(ctx, DemoCompanyID, in)
	if err != nil {
		return err
	}
	d.Log.Info().Int64("conn_id", c.ID).Msg("seed: demo Telegram connection created")
	return nil
}

func queueByName(ctx context.Context, d Deps, name string) (engine.ID, bool, error) {
	qs, err := d.Queues.List(ctx, DemoCompanyID)
	if err != nil {
		return 0, false, err
	}
	for _, q := range qs {
		if q.Name == name {
			return q.ID, true, nil
		}
	}
	return 0, false, nil
}

func seedConversations(ctx context.Context, d Deps) error {
	cd := d.Conversations
	if cd.Journal == nil {
		return nil
	}
	if cd.IDs == nil || cd.Guard == nil || d.Connections == nil || d.Contacts == nil || d.Queues == nil {
		return fmt.Errorf("conversations need IDs, Guard, Connections, Contacts and Queues")
	}
	clock := cd.Clock
	if clock == nil {
		clock = engine.SystemClock{}
	}
	now := clock.Now()
	conns, err := d.Connections.List(ctx, DemoCompanyID)
	if err != nil {
		return err
	}
	byChannel := map[string]engine.Connection{}
	for _, c := range conns {
		if _, ok := byChannel[c.Channel]; !ok {
			byChannel[c.Channel] = c
		}
	}
	created := 0
	for _, conv := range demoConversations {
		conn, ok := byChannel[conv.channel]
		if !ok {
			d.Log.Warn().Str("channel", conv.channel).Msg("seed: no demo connection of this channel, conversation skipped")
			continue
		}
		did, err := writeConversation(ctx, d, conn, conv, now)
		if err != nil {
			return fmt.Errorf("conversation with %s: %w", conv.name, err)
		}
		if did {
			created++
		}
	}
	if created > 0 {
		d.Log.Info().Int("conversations", created).Msg("seed: demo conversations created")
	}
	return nil
}

// writeConversation writes one conversation unless its connection and contact already
// have a ticket; it reports whether it wrote.
func writeConversation(ctx context.Context, d Deps, conn engine.Connection, conv demoConversation, now time.Time) (bool, error) {
	cd := d.Conversations
	contact, _, err := d.Contacts.FindOrCreateByNumber(ctx, DemoCompanyID, conv.number, conv.name)
	if err != nil {
		return false, err
	}
	prev, err := cd.Guard.Current(ctx, conn.ID, contact.ID)
	if err != nil {
		return false, err
	}
	if prev != 0 {
		events, err := cd.Journal.ReadStream(ctx, ticketStream(prev), 1, 1)
		if err != nil {
			return false, err
		}
		if len(events) > 0 {
			return false, nil // written before (and maybe worked on since): leave it
		}
	}
	queueID, ok, err := queueByName(ctx, d, conv.queue)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, fmt.Errorf("no queue %q", conv.queue)
	}
	var userID engine.ID
	if conv.user != "" {
		u, err := d.Users.ByEmail(ctx, conv.user)
		if err != nil {
			return false, fmt.Errorf("user %s: %w", conv.user, err)
		}
		userID = u.ID
	}
	start, err := time.ParseDuration(conv.ago)
	if err != nil {
		return false, err
	}
	tid, err := cd.IDs.Next(ctx, "ticket")
	if err != nil {
		return false, err
	}
	if won, _, err := cd.Guard.Swap(ctx, DemoCompanyID, conn.ID, contact.ID, prev, tid); err != nil || !won {
		// Lost to a live connection that opened a ticket meanwhile: that one stands.
		return false, err
	}

	t := &ticketWriter{ctx: ctx, ids: cd.IDs, at: now.Add(-start)}
	t.do(engine.OpenTicket{TicketID: tid, UUID: uuid.NewString(), CompanyID: DemoCompanyID, ContactID: contact.ID,
		ConnectionID: conn.ID, Channel: conn.Channel, QueueID: queueID, Status: engine.StatusPending,
		Protocol: t.at.Format("20060102") + "-" + strconv.FormatInt(tid, 10)})
	accepted := false
	for i, l := range conv.lines {
		t.at = t.at.Add(l.after)
		if l.fromCustomer {
			t.do(engine.ReceiveMessage{MessageID: t.id("message"), ProviderID: fmt.Sprintf("seed-%d-%d", tid, i), Body: l.body})
			if i == 0 && conn.GreetingMessage != "" {
				// The connection greets a new ticket right after its first message.
				t.at = t.at.Add(time.Second)
				t.sentAndRead(engine.SendAutomaticMessage{MessageID: t.id("message"), Body: conn.GreetingMessage})
			}
			continue
		}
		if !accepted {
			t.do(engine.Accept{UserID: userID})
			accepted = true
		}
		t.do(engine.MarkRead{}) // the attendant read the chat before answering
		t.sentAndRead(engine.SendMessage{MessageID: t.id("message"), SenderID: userID, Body: l.body})
	}
	if userID != 0 && !accepted {
		t.do(engine.Accept{UserID: userID})
	}
	if conv.resolved {
		t.at = t.at.Add(time.Minute)
		t.do(engine.MarkRead{})
		t.do(engine.Resolve{})
		if conn.FarewellMessage != "" {
			t.sentAndRead(engine.SendAutomaticMessage{MessageID: t.id("message"), Body: conn.FarewellMessage})
		}
	}
	if t.err != nil {
		return false, t.err
	}
	if _, err := cd.Journal.Append(ctx, DemoCompanyID, ticketStream(tid), 0, t.data...); err != nil {
		return false, err
	}
	return true, nil
}

func ticketStream(id engine.ID) string { return "ticket/" + strconv.FormatInt(id, 10) }

// ticketWriter decides a conversation's commands one after another, folding each
// decision into the state the next is judged on, and keeps the encoded events.
type ticketWriter struct {
	ctx   context.Context
	ids   engine.IDAllocator
	at    time.Time
	state engine.TicketState
	data  []engine.EventData
	err   error
}

// do decides cmd at the writer's time; the first error sticks.
func (t *ticketWriter) do(cmd engine.TicketCommand) {
	if t.err != nil {
		return
	}
	events, err := engine.DecideTicket(t.state, cmd, t.at)
	if err != nil {
		t.err = fmt.Errorf("%s: %w", cmd.CommandName(), err)
		return
	}
	for _, ev := range events {
		typ, body, err := engine.EncodeTicketEvent(ev)
		if err != nil {
			t.err = err
			return
		}
		t.data = append(t.data, engine.EventData{Type: typ, Data: body})
		t.state = engine.EvolveTicket(t.state, ev)
	}
}

// sentAndRead records a message of ours and its read receipt: a message still at
// ack 0 would be sent again by the connection's outbox when it starts.
func (t *ticketWriter) sentAndRead(cmd engine.TicketCommand) {
	t.do(cmd)
	var id engine.ID
	switch c := cmd.(type) {
	case engine.SendMessage:
		id = c.MessageID
	case engine.SendAutomaticMessage:
		id = c.MessageID
	}
	t.do(engine.AckMessage{MessageID: id, Ack: engine.AckRead})
}

// id allocates an id of the named kind; a failure sticks like a refused command.
func (t *ticketWriter) id(kind string) engine.ID {
	if t.err != nil {
		return 0
	}
	id, err := t.ids.Next(t.ctx, kind)
	if err != nil {
		t.err = err
	}
	return id
}
