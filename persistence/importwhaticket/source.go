package importwhaticket

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// flavour is the source database's SQL dialect. whaticket runs on both through
// Sequelize, with the same CamelCase table and column names.
type flavour int

const (
	flavourPostgres flavour = iota
	flavourMySQL
)

// sql turns a query written with PostgreSQL's "quoted" identifiers into the
// flavour's: MySQL quotes identifiers with backticks. The queries below hold no
// string literal with a double quote, so the swap is exact.
func (f flavour) sql(q string) string {
	if f == flavourMySQL {
		return strings.ReplaceAll(q, `"`, "`")
	}
	return q
}

// driverFor picks the driver and its data source name for a source URL:
// postgres://… (or postgresql://) as it is, mysql://user:pass@host:port/db as the
// MySQL driver's user:pass@tcp(host:port)/db?parseTime=true, and sqlite:PATH, a
// whaticket schema in a SQLite file (whaticket never runs on SQLite, but `atende
// seed --volume` synthesizes its shop into one: Synthesize). SQLite reads
// PostgreSQL's "quoted" identifiers as they are.
func driverFor(raw string) (driver, dsn string, f flavour, err error) {
	if path, ok := strings.CutPrefix(raw, "sqlite:"); ok {
		if path == "" {
			return "", "", 0, errors.New("source URL: sqlite:PATH")
		}
		return "sqlite", path, flavourPostgres, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", 0, fmt.Errorf("source URL: %w", err)
	}
	switch u.Scheme {
	case "postgres", "postgresql":
		return "pgx", raw, flavourPostgres, nil
	case "mysql":
		addr := u.Host
		if u.Port() == "" {
			addr += ":3306"
		}
		name := strings.TrimPrefix(u.Path, "/")
		if name == "" || u.Hostname() == "" {
			return "", "", 0, errors.New("source URL: mysql://user:password@host[:port]/database")
		}
		q := u.Query()
		q.Set("parseTime", "true") // DATETIME columns scan into time.Time
		pw, _ := u.User.Password()
		// The driver parses its own form, options (tls, timeouts…) included.
		c, err := mysql.ParseDSN(fmt.Sprintf("%s:%s@tcp(%s)/%s?%s", u.User.Username(), pw, addr, name, q.Encode()))
		if err != nil {
			return "", "", 0, fmt.Errorf("source URL: %w", err)
		}
		c.Loc = time.UTC
		return "mysql", c.FormatDSN(), flavourMySQL, nil
	}
	return "", "", 0, fmt.Errorf("source URL: unsupported scheme %q (want postgres:// or mysql://)", u.Scheme)
}

// source reads a whaticket database.
type source struct {
	db *sql.DB
	f  flavour
}

func openSource(ctx context.Context, raw string) (*source, error) {
	driver, dsn, f, err := driverFor(raw)
	if err != nil {
		return nil, err
	}
	d, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("open source: %w", err)
	}
	if err := d.PingContext(ctx); err != nil {
		d.Close()
		return nil, fmt.Errorf("open source: %w", err)
	}
	return &source{db: d, f: f}, nil
}

func (s *source) close() error { return s.db.Close() }

// The queries of whaticket-community's final schema (its Sequelize migrations up to
// add-whatsapp-to-user). Nullable columns are read through COALESCE so that a NULL
// reads as the zero value.
const (
	qContacts = `SELECT id, COALESCE(name, ''), COALESCE(number, ''), COALESCE(email, ''),
		COALESCE("profilePicUrl", ''), COALESCE("isGroup", false), "createdAt"
		FROM "Contacts" ORDER BY id`
	qCustomFields = `SELECT "contactId", COALESCE(name, ''), COALESCE(value, '')
		FROM "ContactCustomFields" ORDER BY "contactId", id`
	qUsers = `SELECT id, COALESCE(name, ''), COALESCE(email, ''), COALESCE("passwordHash", ''),
		COALESCE(profile, ''), COALESCE("whatsappId", 0) FROM "Users" ORDER BY id`
	qUserQueues = `SELECT "userId", "queueId" FROM "UserQueues" ORDER BY "userId", "queueId"`
	qQueues     = `SELECT id, COALESCE(name, ''), COALESCE(color, ''), COALESCE("greetingMessage", '')
		FROM "Queues" ORDER BY id`
	qWhatsapps = `SELECT id, COALESCE(name, ''), COALESCE("isDefault", false),
		COALESCE("greetingMessage", ''), COALESCE("farewellMessage", '') FROM "Whatsapps" ORDER BY id`
	qWhatsappQueues = `SELECT "whatsappId", "queueId" FROM "WhatsappQueues" ORDER BY "whatsappId", "queueId"`
	qQuickAnswers   = `SELECT id, COALESCE(shortcut, ''), COALESCE(message, '') FROM "QuickAnswers" ORDER BY id`
	qSettings       = `SELECT "key", COALESCE(value, '') FROM "Settings" ORDER BY "key"`
	qTags           = `SELECT id, COALESCE(name, ''), COALESCE(color, '') FROM "Tags" ORDER BY id`
	qTicketTags     = `SELECT "ticketId", "tagId" FROM "TicketTags" ORDER BY "ticketId", "tagId"`
	qTickets        = `SELECT id, COALESCE(status, ''), COALESCE("contactId", 0), COALESCE("userId", 0),
		COALESCE("whatsappId", 0), COALESCE("queueId", 0), COALESCE("isGroup", false),
		COALESCE("unreadMessages", 0), "createdAt", "updatedAt"
		FROM "Tickets" ORDER BY id`
	qLastTickets = `SELECT COALESCE("whatsappId", 0), "contactId", MAX(id) FROM "Tickets"
		WHERE "contactId" IS NOT NULL GROUP BY "whatsappId", "contactId"`
	qMessages = `SELECT id, COALESCE(body, ''), COALESCE(ack, 0), COALESCE("read", false),
		COALESCE("mediaType", ''), COALESCE("mediaUrl", ''), "ticketId", COALESCE("fromMe", false),
		COALESCE("isDeleted", false), COALESCE("quotedMsgId", ''), "createdAt"
		FROM "Messages" ORDER BY "ticketId", "createdAt", id`
	qCountTickets  = `SELECT COUNT(*) FROM "Tickets"`
	qCountMessages = `SELECT COUNT(*) FROM "Messages"`
)

// has reports whether the source has table (whaticket-community has no tags; some
// forks do).
func (s *source) has(ctx context.Context, table string) bool {
	rows, err := s.db.QueryContext(ctx, s.f.sql(`SELECT 1 FROM "`+table+`" WHERE 1 = 0`))
	if err != nil {
		return false
	}
	rows.Close()
	return true
}

// each runs query and calls scan for every row.
func (s *source) each(ctx context.Context, query string, scan func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, s.f.sql(query))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (s *source) count(ctx context.Context, query string) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, s.f.sql(query)).Scan(&n)
	return n, err
}

type wtContact struct {
	ID                                 int64
	Name, Number, Email, ProfilePicURL string
	IsGroup                            bool
	CreatedAt                          time.Time
}

type wtUser struct {
	ID                         int64
	Name, Email, Hash, Profile string
	WhatsappID                 int64
}

type wtQueue struct {
	ID                    int64
	Name, Color, Greeting string
}

type wtWhatsapp struct {
	ID                 int64
	Name               string
	IsDefault          bool
	Greeting, Farewell string
}

type wtTicket struct {
	ID                                     int64
	Status                                 string
	ContactID, UserID, WhatsappID, QueueID int64
	IsGroup                                bool
	Unread                                 int
	CreatedAt, UpdatedAt                   time.Time
}

type wtMessage struct {
	ID, Body                string
	Ack                     int
	Read, FromMe, IsDeleted bool
	MediaType, MediaURL     string
	TicketID                int64
	QuotedID                string
	CreatedAt               time.Time
}

func scanTicket(r *sql.Rows) (wtTicket, error) {
	var t wtTicket
	err := r.Scan(&t.ID, &t.Status, &t.ContactID, &t.UserID, &t.WhatsappID, &t.QueueID, &t.IsGroup, &t.Unread,
		&t.CreatedAt, &t.UpdatedAt)
	return t, err
}

func scanMessage(r *sql.Rows) (wtMessage, error) {
	var m wtMessage
	err := r.Scan(&m.ID, &m.Body, &m.Ack, &m.Read, &m.MediaType, &m.MediaURL, &m.TicketID, &m.FromMe, &m.IsDeleted,
		&m.QuotedID, &m.CreatedAt)
	return m, err
}
