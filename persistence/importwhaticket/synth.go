package importwhaticket

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"atende/persistence/db"
)

// WhaticketSchema is whaticket-community's schema as its Sequelize migrations leave
// it on PostgreSQL (backend/src/database/migrations, create-* and add-* up to
// add-whatsapp-to-user): quoted CamelCase tables and columns, integer ids except the
// messages', which are WhatsApp's string ids. Tags and TicketTags come from a fork
// that has them (whaticket-community itself has none).
const WhaticketSchema = `
CREATE TABLE "Users" (id SERIAL PRIMARY KEY, name VARCHAR(255) NOT NULL, email VARCHAR(255) NOT NULL UNIQUE,
	"passwordHash" VARCHAR(255) NOT NULL, "createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL,
	profile VARCHAR(255) NOT NULL DEFAULT 'admin', "tokenVersion" INTEGER NOT NULL DEFAULT 0, "whatsappId" INTEGER);
CREATE TABLE "Contacts" (id SERIAL PRIMARY KEY, name VARCHAR(255) NOT NULL, number VARCHAR(255) NOT NULL UNIQUE,
	"profilePicUrl" VARCHAR(255), "createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL,
	email VARCHAR(255) NOT NULL DEFAULT '', "isGroup" BOOLEAN NOT NULL DEFAULT false);
CREATE TABLE "Whatsapps" (id SERIAL PRIMARY KEY, session TEXT, qrcode TEXT, status VARCHAR(255), battery VARCHAR(255),
	plugged BOOLEAN, "createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL, name VARCHAR(255) NOT NULL UNIQUE,
	"isDefault" BOOLEAN NOT NULL DEFAULT false, retries INTEGER NOT NULL DEFAULT 0, "greetingMessage" TEXT,
	"farewellMessage" TEXT);
ALTER TABLE "Users" ADD FOREIGN KEY ("whatsappId") REFERENCES "Whatsapps" (id) ON DELETE SET NULL;
CREATE TABLE "Queues" (id SERIAL PRIMARY KEY, name VARCHAR(255) NOT NULL UNIQUE, color VARCHAR(255) NOT NULL UNIQUE,
	"greetingMessage" TEXT, "createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL);
CREATE TABLE "Tickets" (id SERIAL PRIMARY KEY, status VARCHAR(255) NOT NULL DEFAULT 'pending', "lastMessage" TEXT,
	"contactId" INTEGER REFERENCES "Contacts" (id) ON DELETE CASCADE, "userId" INTEGER REFERENCES "Users" (id) ON DELETE SET NULL,
	"createdAt" TIMESTAMPTZ(6) NOT NULL, "updatedAt" TIMESTAMPTZ(6) NOT NULL,
	"whatsappId" INTEGER REFERENCES "Whatsapps" (id) ON DELETE SET NULL, "isGroup" BOOLEAN NOT NULL DEFAULT false,
	"unreadMessages" INTEGER, "queueId" INTEGER REFERENCES "Queues" (id) ON DELETE SET NULL);
CREATE TABLE "Messages" (id VARCHAR(255) PRIMARY KEY, body TEXT NOT NULL, ack INTEGER NOT NULL DEFAULT 0,
	read BOOLEAN NOT NULL DEFAULT false, "mediaType" VARCHAR(255), "mediaUrl" VARCHAR(255),
	"ticketId" INTEGER NOT NULL REFERENCES "Tickets" (id) ON DELETE CASCADE,
	"createdAt" TIMESTAMPTZ(6) NOT NULL, "updatedAt" TIMESTAMPTZ(6) NOT NULL, "fromMe" BOOLEAN NOT NULL DEFAULT false,
	"isDeleted" BOOLEAN NOT NULL DEFAULT false, "contactId" INTEGER REFERENCES "Contacts" (id) ON DELETE CASCADE,
	"quotedMsgId" VARCHAR(255) REFERENCES "Messages" (id) ON DELETE SET NULL);
CREATE TABLE "ContactCustomFields" (id SERIAL PRIMARY KEY, name VARCHAR(255) NOT NULL, value VARCHAR(255) NOT NULL,
	"contactId" INTEGER NOT NULL REFERENCES "Contacts" (id) ON DELETE CASCADE,
	"createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL);
CREATE TABLE "Settings" (key VARCHAR(255) PRIMARY KEY, value TEXT NOT NULL,
	"createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL);
CREATE TABLE "WhatsappQueues" ("whatsappId" INTEGER, "queueId" INTEGER,
	"createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL, PRIMARY KEY ("whatsappId", "queueId"));
CREATE TABLE "UserQueues" ("userId" INTEGER, "queueId" INTEGER,
	"createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL, PRIMARY KEY ("userId", "queueId"));
CREATE TABLE "QuickAnswers" (id SERIAL PRIMARY KEY, shortcut TEXT NOT NULL, message TEXT NOT NULL,
	"createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL);
CREATE TABLE "Tags" (id SERIAL PRIMARY KEY, name VARCHAR(255) NOT NULL, color VARCHAR(255),
	"createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL);
CREATE TABLE "TicketTags" ("ticketId" INTEGER NOT NULL, "tagId" INTEGER NOT NULL,
	"createdAt" TIMESTAMPTZ NOT NULL, "updatedAt" TIMESTAMPTZ NOT NULL, PRIMARY KEY ("ticketId", "tagId"));
`

// sqliteSchema is WhaticketSchema in SQLite's words: the same tables and columns,
// integer keys that number themselves, and the one foreign key PostgreSQL adds
// afterwards declared in place (SQLite cannot add one to a table).
func sqliteSchema() string {
	s := strings.ReplaceAll(WhaticketSchema, "SERIAL PRIMARY KEY", "INTEGER PRIMARY KEY")
	s = strings.ReplaceAll(s, "TIMESTAMPTZ(6)", "DATETIME")
	s = strings.ReplaceAll(s, "TIMESTAMPTZ", "DATETIME")
	s = strings.Replace(s, `ALTER TABLE "Users" ADD FOREIGN KEY ("whatsappId") REFERENCES "Whatsapps" (id) ON DELETE SET NULL;`, "", 1)
	return s
}

// Volume is the size of a synthetic whaticket shop (Synthesize).
type Volume struct {
	Contacts, Tickets, MessagesPerTicket int
}

// VolumeOf is the shape of the footprint benchmark (B10) for a number of messages:
// ten messages a ticket and one ticket a contact — 1,000,000 messages make 100,000
// contacts and 100,000 tickets.
func VolumeOf(messages int) Volume {
	t := max(messages/10, 1)
	return Volume{Contacts: t, Tickets: t, MessagesPerTicket: 10}
}

// Messages is the number of messages v holds.
func (v Volume) Messages() int { return v.Tickets * v.MessagesPerTicket }

// The synthetic shop's people: an admin and VolumeAttendants attendants, each in
// one or two of the four queues, all with VolumePassword.
const (
	VolumeAdmin      = "admin@volume.test"
	VolumePassword   = "volume123"
	VolumeAttendants = 20
	volumeQueues     = 4
)

// Synthesize writes a whaticket-community shop of volume v into the empty database
// at url (postgres://… or sqlite:PATH), as whaticket would have stored it: its
// schema, one WhatsApp connection, four queues, an admin and VolumeAttendants
// attendants, contacts, tickets in every status (most closed, as in a shop that has
// worked for a while) spread over queues and attendants, and v.MessagesPerTicket
// messages each, the customer's and ours in turn, a few with media. The same v
// gives the same ids and texts; times count back from now. Progress, when not nil,
// receives a line per table.
func Synthesize(ctx context.Context, url string, v Volume, progress io.Writer) error {
	if v.Contacts <= 0 || v.Tickets <= 0 || v.MessagesPerTicket <= 0 {
		return fmt.Errorf("synthesize: contacts, tickets and messages per ticket must be positive, got %+v", v)
	}
	driver, dsn, f, err := driverFor(url)
	if err != nil {
		return err
	}
	if f == flavourMySQL {
		return errors.New("synthesize: postgres://… or sqlite:PATH only")
	}
	d, err := sql.Open(driver, dsn)
	if err != nil {
		return fmt.Errorf("synthesize: %w", err)
	}
	defer d.Close()
	d.SetMaxOpenConns(1)
	s := synth{v: v, dialect: db.Postgres, progress: progress,
		base: time.Now().UTC().Truncate(time.Hour).Add(-30 * 24 * time.Hour)}
	schema := WhaticketSchema
	if driver == "sqlite" {
		s.dialect = db.SQLite
		schema = sqliteSchema()
		// A scratch copy: nothing to recover after a crash, so no journal and no
		// sync.
		if _, err := d.ExecContext(ctx, `PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF`); err != nil {
			return fmt.Errorf("synthesize: %w", err)
		}
	}
	if _, err := d.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("synthesize: schema: %w", err)
	}
	tx, err := d.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("synthesize: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	s.tx = tx
	for _, step := range []func(context.Context) error{s.reference, s.contacts, s.tickets, s.messages} {
		if err := step(ctx); err != nil {
			return fmt.Errorf("synthesize: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("synthesize: %w", err)
	}
	return nil
}

type synth struct {
	v        Volume
	dialect  db.Dialect
	tx       *sql.Tx
	base     time.Time
	progress io.Writer
}

// mix is splitmix64's finaliser: a well-spread hash of i, so that the generated
// shop varies from row to row without a random source (and so repeats exactly).
func mix(i uint64) uint64 {
	i += 0x9e3779b97f4a7c15
	i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9
	i = (i ^ (i >> 27)) * 0x94d049bb133111eb
	return i ^ (i >> 31)
}

// insert writes n rows of cols into table; row fills one row's values. The rows are
// made and written a thousand at a time.
func (s *synth) insert(ctx context.Context, table string, cols []string, n int, row func(i int, vals []any)) error {
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = `"` + c + `"`
	}
	const chunk = 1000
	rows := make([][]any, 0, chunk)
	for start := 0; start < n; start += chunk {
		rows = rows[:0]
		for i := start; i < min(start+chunk, n); i++ {
			r := make([]any, len(cols))
			row(i, r)
			rows = append(rows, r)
		}
		if err := db.InsertRows(ctx, s.tx, s.dialect, `"`+table+`"`, quoted, nil, rows, "", nil); err != nil {
			return err
		}
	}
	if s.progress != nil {
		fmt.Fprintf(s.progress, "synthesized %d %s\n", n, strings.ToLower(table))
	}
	return nil
}

var volumeQueueNames = [volumeQueues][2]string{
	{"Vendas", "#2E7D32"}, {"Suporte", "#1565C0"}, {"Financeiro", "#C62828"}, {"Pós-venda", "#6A1B9A"},
}

// reference writes the connection, the queues, the users and their queues, a few
// quick answers and whaticket's one setting.
func (s *synth) reference(ctx context.Context) error {
	at := s.base
	hash, err := bcrypt.GenerateFromPassword([]byte(VolumePassword), bcrypt.DefaultCost)
	if err != nil {
		return err
	}
	if err := s.insert(ctx, "Whatsapps", []string{"name", "status", "isDefault", "greetingMessage", "farewellMessage", "createdAt", "updatedAt"}, 1,
		func(_ int, r []any) {
			copy(r, []any{"Loja", "DISCONNECTED", true, "Olá! Em que podemos ajudar?", "Obrigado pelo contato!", at, at})
		}); err != nil {
		return err
	}
	if err := s.insert(ctx, "Queues", []string{"name", "color", "greetingMessage", "createdAt", "updatedAt"}, volumeQueues,
		func(i int, r []any) {
			copy(r, []any{volumeQueueNames[i][0], volumeQueueNames[i][1], "Você está na fila " + volumeQueueNames[i][0], at, at})
		}); err != nil {
		return err
	}
	if err := s.insert(ctx, "WhatsappQueues", []string{"whatsappId", "queueId", "createdAt", "updatedAt"}, volumeQueues,
		func(i int, r []any) { copy(r, []any{1, i + 1, at, at}) }); err != nil {
		return err
	}
	// User 1 is the admin; user 2+k is attendant k, in queue k%4 and, for even k,
	// the next one too.
	if err := s.insert(ctx, "Users", []string{"name", "email", "passwordHash", "profile", "createdAt", "updatedAt"}, 1+VolumeAttendants,
		func(i int, r []any) {
			if i == 0 {
				copy(r, []any{"Administrador", VolumeAdmin, string(hash), "admin", at, at})
				return
			}
			copy(r, []any{fmt.Sprintf("Atendente %d", i), fmt.Sprintf("atendente%d@volume.test", i), string(hash), "user", at, at})
		}); err != nil {
		return err
	}
	var links [][2]int
	for k := range VolumeAttendants {
		links = append(links, [2]int{2 + k, 1 + k%volumeQueues})
		if k%2 == 0 {
			links = append(links, [2]int{2 + k, 1 + (k+1)%volumeQueues})
		}
	}
	if err := s.insert(ctx, "UserQueues", []string{"userId", "queueId", "createdAt", "updatedAt"}, len(links),
		func(i int, r []any) { copy(r, []any{links[i][0], links[i][1], at, at}) }); err != nil {
		return err
	}
	quick := [][2]string{{"ola", "Olá! Meu nome é {{name}}, como posso ajudar?"}, {"pix", "Nossa chave Pix é o CNPJ 12.345.678/0001-90."},
		{"prazo", "O prazo de entrega é de 3 a 5 dias úteis."}, {"tchau", "Obrigado pelo contato, tenha um ótimo dia!"}}
	if err := s.insert(ctx, "QuickAnswers", []string{"shortcut", "message", "createdAt", "updatedAt"}, len(quick),
		func(i int, r []any) { copy(r, []any{quick[i][0], quick[i][1], at, at}) }); err != nil {
		return err
	}
	return s.insert(ctx, "Settings", []string{"key", "value", "createdAt", "updatedAt"}, 1,
		func(_ int, r []any) { copy(r, []any{"userCreation", "disabled", at, at}) })
}

var (
	firstNames = []string{"Ana", "Bruno", "Carla", "Diego", "Eduarda", "Felipe", "Gabriela", "Henrique", "Isabela", "João",
		"Larissa", "Marcos", "Natália", "Otávio", "Paula", "Rafael", "Sofia", "Thiago", "Vitória", "William"}
	lastNames = []string{"Silva", "Santos", "Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves", "Pereira", "Lima", "Gomes",
		"Costa", "Ribeiro", "Martins", "Carvalho", "Almeida", "Lopes", "Soares", "Fernandes", "Vieira", "Barbosa"}
	areaCodes = []int{11, 21, 31, 41, 51, 61, 65, 71, 81, 85, 91, 92}
)

// contacts writes v.Contacts customers with Brazilian mobile numbers, all different.
func (s *synth) contacts(ctx context.Context) error {
	return s.insert(ctx, "Contacts", []string{"name", "number", "email", "isGroup", "createdAt", "updatedAt"}, s.v.Contacts,
		func(i int, r []any) {
			h := mix(uint64(i))
			name := firstNames[h%uint64(len(firstNames))] + " " + lastNames[(h>>8)%uint64(len(lastNames))]
			// 55 + area code + 9 + eight digits from the row number: unique up to
			// 100,000,000 contacts.
			number := fmt.Sprintf("55%d9%08d", areaCodes[(h>>16)%uint64(len(areaCodes))], i)
			email := ""
			if h%4 == 0 {
				email = fmt.Sprintf("cliente%d@exemplo.com.br", i+1)
			}
			at := s.base.Add(time.Duration(i) * time.Second)
			copy(r, []any{name, number, email, false, at, at})
		})
}

// ticket is what the generator decides of ticket i (0-based): its status, queue,
// attendant and when it began. The newest ticket of each contact may be open or
// pending; the ones before it are closed, as whaticket allows one open ticket per
// contact and connection.
func (s *synth) ticket(i int) (status string, queue, user int, began time.Time) {
	h := mix(uint64(i) + 1<<40)
	queue = 1 + int(h%volumeQueues)
	newest := i+s.v.Contacts >= s.v.Tickets
	switch p := (h >> 8) % 100; {
	case newest && p < 12:
		status = "pending"
	case newest && p < 30:
		status = "open"
	default:
		status = "closed"
	}
	if status != "pending" {
		// An attendant of the ticket's queue: attendant k is in queue k%4.
		k := int(queue-1) + volumeQueues*int((h>>16)%(VolumeAttendants/volumeQueues))
		user = 2 + k
	}
	span := 30 * 24 * time.Hour
	began = s.base.Add(time.Duration(int64(span) / int64(s.v.Tickets) * int64(i)))
	return status, queue, user, began
}

// tickets writes v.Tickets tickets, ticket i of contact i mod v.Contacts.
func (s *synth) tickets(ctx context.Context) error {
	return s.insert(ctx, "Tickets", []string{"status", "lastMessage", "contactId", "userId", "whatsappId", "queueId",
		"unreadMessages", "isGroup", "createdAt", "updatedAt"}, s.v.Tickets,
		func(i int, r []any) {
			status, queue, user, began := s.ticket(i)
			var userID any
			if user > 0 {
				userID = user
			}
			n := s.v.MessagesPerTicket
			unread := 0
			if status == "pending" {
				unread = 1
			}
			body, _, _ := s.message(i, n-1)
			copy(r, []any{status, body, 1 + i%s.v.Contacts, userID, 1, queue, unread, false,
				began, began.Add(time.Duration(n) * 90 * time.Second)})
		})
}

var phrases = []string{
	"Olá, boa tarde!", "Bom dia, tudo bem?", "Gostaria de saber o prazo de entrega do meu pedido.",
	"Qual é o valor do frete para o meu CEP?", "Vocês aceitam Pix ou só cartão?",
	"Meu pedido chegou com um item faltando, podem verificar?", "Obrigado pela ajuda!",
	"Vou verificar com o setor responsável e já retorno.", "Pode me passar o número do pedido, por favor?",
	"O boleto vence amanhã, consigo pagar depois?", "Preciso trocar o tamanho da camiseta.",
	"Claro! Enviamos o código de rastreio por e-mail.", "Tem esse modelo na cor azul?",
	"A nota fiscal foi enviada para o seu e-mail cadastrado.", "Perfeito, muito obrigado pelo retorno.",
	"Estou sem acesso ao aplicativo desde ontem.", "Conseguimos resolver, qualquer coisa estamos à disposição.",
	"Qual o horário de atendimento da loja?", "Segue o comprovante do pagamento.", "Ok",
	"Sim", "Não recebi o código de confirmação.", "Quero cancelar a minha assinatura.",
	"Seu reembolso será processado em até 7 dias úteis.",
}

// message is message k of ticket i: its text, whether it is ours, and its media
// (a photo now and then; whaticket stores the file name as the body).
func (s *synth) message(i, k int) (body string, fromMe bool, media string) {
	h := mix(uint64(i)<<8 | uint64(k))
	fromMe = k%2 == 1
	if h%33 == 0 {
		name := fmt.Sprintf("%d-%06x.jpeg", 1700000000+i, h&0xffffff)
		return name, fromMe, name
	}
	body = phrases[h%uint64(len(phrases))]
	if (h>>8)%3 == 0 {
		body += " " + phrases[(h>>16)%uint64(len(phrases))]
	}
	return body, fromMe, ""
}

// messages writes v.MessagesPerTicket messages to every ticket, 90 s apart; a
// pending ticket's last one is the customer's and unread.
func (s *synth) messages(ctx context.Context) error {
	per := s.v.MessagesPerTicket
	return s.insert(ctx, "Messages", []string{"id", "body", "ack", "read", "mediaType", "mediaUrl", "ticketId", "contactId",
		"fromMe", "isDeleted", "createdAt", "updatedAt"}, s.v.Messages(),
		func(n int, r []any) {
			i, k := n/per, n%per
			status, _, _, began := s.ticket(i)
			body, fromMe, media := s.message(i, k)
			read, ack := true, 0
			if fromMe {
				ack = 3 // read by the customer
			}
			if status == "pending" && k == per-1 {
				fromMe, read = false, false
			}
			var mediaType, mediaURL, contact any
			if media != "" {
				mediaType, mediaURL = "image", media
			}
			if !fromMe {
				contact = 1 + i%s.v.Contacts
			}
			at := began.Add(time.Duration(k) * 90 * time.Second)
			// WhatsApp-like ids: 3EB0 and 20 hex digits, unique by ticket and position.
			id := fmt.Sprintf("3EB0%08X%04X%08X", i, k, uint32(mix(uint64(n))))
			copy(r, []any{id, body, ack, read, mediaType, mediaURL, i + 1, contact, fromMe, false, at, at})
		})
}
