// Package whaticketdbtest builds whaticket-community databases for tests: its
// schema, and a generated shop with hostile rows among the ordinary ones.
package whaticketdbtest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"golang.org/x/crypto/bcrypt"

	"atende/persistence/importwhaticket"
)

// Schema is whaticket-community's schema on PostgreSQL.
const Schema = importwhaticket.WhaticketSchema

// Shop is what a generated whaticket database holds, and what an import of it must
// give.
type Shop struct {
	Tickets, Messages int // rows in the source
	// WantTickets, WantMessages, WantContacts: what Atende must hold after the
	// import (the rest is hostile input the importer skips).
	WantTickets, WantMessages, WantContacts int
	Users                                   map[string]string // e-mail → password
}

// Build fills an empty PostgreSQL schema at url with a whaticket shop: 3 queues,
// 2 connections, 4 users (bcrypt), 40 contacts (one with an invalid number, one a
// group), n tickets in every status and 5 messages each (media, ours, deleted,
// quoted), plus hostile rows.
func Build(t testing.TB, url string, n int) Shop {
	t.Helper()
	src, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := src.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(Schema)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	s := Shop{Users: map[string]string{}}
	for i, q := range []struct{ name, color string }{{"Vendas", "#7C7C7C"}, {"Suporte", "#1E90FF"}, {"Financeiro", "#FF0000"}} {
		exec(`INSERT INTO "Queues" (name, color, "greetingMessage", "createdAt", "updatedAt") VALUES ($1, $2, $3, $4, $4)`,
			q.name, q.color, fmt.Sprintf("Bem-vindo à fila %d", i+1), now)
	}
	exec(`INSERT INTO "Whatsapps" (name, status, "isDefault", "greetingMessage", "farewellMessage", "createdAt", "updatedAt")
		VALUES ('Loja', 'CONNECTED', true, 'Olá!', 'Tchau!', $1, $1), ('Suporte WA', 'DISCONNECTED', false, NULL, NULL, $1, $1)`, now)
	exec(`INSERT INTO "WhatsappQueues" VALUES (1, 1, $1, $1), (1, 2, $1, $1), (2, 3, $1, $1)`, now)
	for i, u := range []struct{ name, email, pw, profile string }{
		{"Administrador", "admin@whaticket.com", "admin", "admin"},
		{"Ana Atendente", "ana@loja.com", "senha-da-ana", "user"},
		{"Bruno", "bruno@loja.com", "senha-do-bruno", "user"},
		{"X", "not-an-email", "whatever", "user"}, // refused: bad e-mail and a one-letter name
	} {
		hash, err := bcrypt.GenerateFromPassword([]byte(u.pw), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		exec(`INSERT INTO "Users" (name, email, "passwordHash", profile, "createdAt", "updatedAt") VALUES ($1, $2, $3, $4, $5, $5)`,
			u.name, u.email, string(hash), u.profile, now)
		if i < 3 {
			s.Users[u.email] = u.pw
		}
	}
	exec(`INSERT INTO "UserQueues" VALUES (2, 1, $1, $1), (3, 2, $1, $1), (3, 3, $1, $1)`, now)
	exec(`INSERT INTO "Settings" VALUES ('userCreation', 'disabled', $1, $1), ('somethingElse', 'x', $1, $1)`, now)
	exec(`INSERT INTO "QuickAnswers" (shortcut, message, "createdAt", "updatedAt") VALUES
		('oi', 'Olá, em que posso ajudar?', $1, $1), ('pix', 'Nossa chave PIX é 123', $1, $1)`, now)
	exec(`INSERT INTO "Tags" (name, color, "createdAt", "updatedAt") VALUES ('VIP', '#FFD700', $1, $1)`, now)
	const contacts = 40
	for c := 1; c <= contacts; c++ {
		number := fmt.Sprintf("55659%08d", c)
		name := fmt.Sprintf("Cliente %d", c)
		var pic any
		group := false
		switch c {
		case 7:
			number = "abc-not-a-number" // refused, with its tickets
		case 8:
			number, group, name = "556599990000-1612345678", true, "Grupo da família"
		case 9:
			name = strings.Repeat("Nome longo ", 20) // clipped
		case 10:
			pic = nil
		}
		exec(`INSERT INTO "Contacts" (name, number, "profilePicUrl", email, "isGroup", "createdAt", "updatedAt")
			VALUES ($1, $2, $3, $4, $5, $6, $6)`, name, number, pic, fmt.Sprintf("c%d@mail.com", c), group, now)
		if c%5 == 0 {
			exec(`INSERT INTO "ContactCustomFields" (name, value, "contactId", "createdAt", "updatedAt") VALUES ('CPF', $1, $2, $3, $3)`,
				fmt.Sprintf("000.000.000-%02d", c), c, now)
		}
	}
	s.WantContacts = contacts - 1
	statuses := []string{"open", "pending", "closed"}
	for i := 1; i <= n; i++ {
		contact := (i-1)%contacts + 1
		status := statuses[i%3]
		var user, whatsapp, queue, unread any
		if status != "pending" {
			user = 2 + i%2
		}
		if i%11 != 0 {
			whatsapp = 1 + i%2 // some tickets lost their connection
		}
		if i%4 != 0 {
			queue = 1 + i%3
		}
		if i%2 == 0 {
			unread = 0
		} else {
			unread = 2
		}
		at := now.Add(time.Duration(i) * time.Minute)
		exec(`INSERT INTO "Tickets" (status, "contactId", "userId", "whatsappId", "queueId", "isGroup", "unreadMessages",
			"createdAt", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			status, contact, user, whatsapp, queue, contact == 8, unread, at, at.Add(30*time.Minute))
		if i%6 == 0 {
			exec(`INSERT INTO "TicketTags" VALUES ($1, 1, $2, $2)`, i, now)
		}
		s.Tickets++
		if contact != 7 {
			s.WantTickets++
		}
		for k := 0; k < 5; k++ {
			id := fmt.Sprintf("3EB0%06d%02dABCDEF", i, k)
			body := fmt.Sprintf("mensagem %d do ticket %d", k, i)
			fromMe := k%2 == 1
			var mediaType, mediaURL, quoted any
			ack, deleted := 0, false
			switch k {
			case 1:
				ack = 3
			case 2:
				mediaType, mediaURL = "image", fmt.Sprintf("%d-foto.jpeg", i)
			case 3:
				quoted = fmt.Sprintf("3EB0%06d%02dABCDEF", i, 0)
				deleted = i%5 == 0
			case 4:
				mediaType = "chat"
			}
			if i%13 == 0 && k == 4 {
				body = "" // no body, no media: skipped
			}
			if i%17 == 0 && k == 0 {
				body = "com\x00nulo" // NUL dropped
				body = strings.ReplaceAll(body, "\x00", "")
			}
			exec(`INSERT INTO "Messages" (id, body, ack, read, "mediaType", "mediaUrl", "ticketId", "fromMe", "isDeleted",
				"quotedMsgId", "createdAt", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
				id, body, ack, k < 3, mediaType, mediaURL, i, fromMe, deleted, quoted, at.Add(time.Duration(k)*time.Second))
			s.Messages++
			if contact != 7 && !(i%13 == 0 && k == 4) {
				s.WantMessages++
			}
		}
	}
	// An over-long message: clipped, kept.
	exec(`INSERT INTO "Messages" (id, body, "ticketId", "createdAt", "updatedAt") VALUES ('LONG1', $1, 1, $2, $2)`,
		strings.Repeat("a", 70000), now.Add(time.Hour))
	s.Messages++
	s.WantMessages++
	return s
}

// Bulk fills an empty PostgreSQL schema at url with a plain shop of the given
// volume, generated by the database itself: one connection, queue and admin
// (admin@bulk.test / admin), contacts, tickets in every status and perTicket
// messages each, every other one ours.
func Bulk(t testing.TB, url string, contacts, tickets, perTicket int) {
	t.Helper()
	src, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	hash, err := bcrypt.GenerateFromPassword([]byte("admin"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		Schema,
		`INSERT INTO "Whatsapps" (name, "isDefault", "createdAt", "updatedAt") VALUES ('Loja', true, now(), now())`,
		`INSERT INTO "Queues" (name, color, "createdAt", "updatedAt") VALUES ('Vendas', '#7C7C7C', now(), now())`,
		fmt.Sprintf(`INSERT INTO "Users" (name, email, "passwordHash", profile, "createdAt", "updatedAt")
			VALUES ('Admin', 'admin@bulk.test', '%s', 'admin', now(), now())`, hash),
		fmt.Sprintf(`INSERT INTO "Contacts" (name, number, "createdAt", "updatedAt")
			SELECT 'Cliente ' || g, '5565' || lpad(g::text, 9, '0'), now(), now() FROM generate_series(1, %d) g`, contacts),
		fmt.Sprintf(`INSERT INTO "Tickets" (status, "contactId", "userId", "whatsappId", "queueId", "unreadMessages",
			"createdAt", "updatedAt")
			SELECT (ARRAY['open', 'pending', 'closed'])[1 + g %% 3], 1 + g %% %d, CASE WHEN g %% 3 = 1 THEN NULL ELSE 1 END,
				1, 1, 0, now() - interval '30 days' + g * interval '1 second', now() - interval '29 days' + g * interval '1 second'
			FROM generate_series(1, %d) g`, contacts, tickets),
		fmt.Sprintf(`INSERT INTO "Messages" (id, body, ack, read, "ticketId", "fromMe", "createdAt", "updatedAt")
			SELECT 'M' || t || '-' || k, 'mensagem ' || k || ' do ticket ' || t || ', com algumas palavras a mais', 3, true, t,
				k %% 2 = 1, now() - interval '30 days' + t * interval '1 second' + k * interval '1 millisecond', now()
			FROM generate_series(1, %d) t, generate_series(1, %d) k`, tickets, perTicket),
	} {
		if _, err := src.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
