package readmodel

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"atende/engine"
	"atende/persistence/db"
)

// ChatProjectionName is the checkpoint name of the chats read model.
const ChatProjectionName = "chats"

// ChatProjection folds the internal chat's events (streams chat/<id>) into the tables
// chats, chat_users and chat_messages. It implements the projection Runner's
// Projection and Resetter interfaces. Events of other streams are ignored; an event
// whose version the chat row already has (a replay) is skipped.
type ChatProjection struct{}

// Name implements projection.Projection.
func (ChatProjection) Name() string { return ChatProjectionName }

// Reset empties the chat tables before a replay from position 0.
func (ChatProjection) Reset(ctx context.Context, tx *sql.Tx, _ *db.DB) error {
	for _, s := range []string{`DELETE FROM chats`, `DELETE FROM chat_users`, `DELETE FROM chat_messages`} {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("reset %s: %s: %w", ChatProjectionName, s, err)
		}
	}
	return nil
}

// Apply implements projection.Projection.
func (ChatProjection) Apply(ctx context.Context, tx *sql.Tx, d *db.DB, events []engine.RecordedEvent) error {
	for _, rec := range events {
		if !strings.HasPrefix(rec.StreamID, "chat/") {
			continue
		}
		ev, err := engine.DecodeChatEvent(rec.Type, rec.Data)
		if err != nil {
			return fmt.Errorf("chats projection at %d: %w", rec.Position, err)
		}
		if err := applyChat(ctx, tx, d.Dialect, rec, ev); err != nil {
			return fmt.Errorf("chats projection at %d (%s): %w", rec.Position, rec.Type, err)
		}
	}
	return nil
}

func applyChat(ctx context.Context, tx *sql.Tx, dialect db.Dialect, rec engine.RecordedEvent, ev engine.ChatEvent) error {
	var version int64
	err := tx.QueryRowContext(ctx, `SELECT version FROM chats WHERE id = $1`, ev.ChatID).Scan(&version)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if ev.Type != engine.EvChatCreated {
			return nil // a chat whose creation this read model never saw: nothing to fold into
		}
	case err != nil:
		return err
	case rec.Version <= version:
		return nil // applied before
	}
	at := tsArg(dialect, ev.At)
	exec := func(q string, args ...any) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}
	switch ev.Type {
	case engine.EvChatCreated:
		if err := exec(`INSERT INTO chats (id, company_id, uuid, owner_id, title, search, version, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`, ev.ChatID, rec.CompanyID, ev.UUID, ev.OwnerID, ev.Title,
			engine.FoldSearchText(ev.Title), rec.Version, at); err != nil {
			return err
		}
		return addChatUsers(ctx, tx, ev.ChatID, rec.CompanyID, ev.Participants)
	case engine.EvChatUpdated:
		if err := exec(`UPDATE chats SET title = $1, version = $2, updated_at = $3, search = $4 WHERE id = $5`,
			ev.Title, rec.Version, at, engine.FoldSearchText(ev.Title), ev.ChatID); err != nil {
			return err
		}
		a := args{}
		q := `DELETE FROM chat_users WHERE chat_id = ` + a.add(ev.ChatID)
		if len(ev.Participants) > 0 {
			q += ` AND user_id NOT IN (` + a.ids(ev.Participants) + `)`
		}
		if err := exec(q, a.list...); err != nil {
			return err
		}
		return addChatUsers(ctx, tx, ev.ChatID, rec.CompanyID, ev.Participants)
	case engine.EvChatDeleted:
		if err := exec(`UPDATE chats SET deleted = 1, version = $1, updated_at = $2 WHERE id = $3`, rec.Version, at, ev.ChatID); err != nil {
			return err
		}
		return exec(`DELETE FROM chat_users WHERE chat_id = $1`, ev.ChatID)
	case engine.EvChatMessagePosted:
		if err := exec(`INSERT INTO chat_messages (id, chat_id, company_id, seq, sender_id, body, media_path, media_name, media_type, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, ev.MessageID, ev.ChatID, rec.CompanyID, rec.Version, ev.UserID, ev.Body,
			ev.MediaPath, ev.MediaName, ev.MediaType, at); err != nil {
			return err
		}
		last := ev.Body
		if last == "" {
			last = ev.MediaName
		}
		if err := exec(`UPDATE chats SET last_message = $1, version = $2, updated_at = $3 WHERE id = $4`,
			last, rec.Version, at, ev.ChatID); err != nil {
			return err
		}
		return exec(`UPDATE chat_users SET unreads = unreads + 1 WHERE chat_id = $1 AND user_id <> $2`, ev.ChatID, ev.UserID)
	case engine.EvChatRead:
		if err := exec(`UPDATE chats SET version = $1 WHERE id = $2`, rec.Version, ev.ChatID); err != nil {
			return err
		}
		return exec(`UPDATE chat_users SET unreads = 0 WHERE chat_id = $1 AND user_id = $2`, ev.ChatID, ev.UserID)
	}
	return nil
}

func addChatUsers(ctx context.Context, tx *sql.Tx, chatID, companyID engine.ID, users []engine.ID) error {
	for _, u := range users {
		if _, err := tx.ExecContext(ctx, `INSERT INTO chat_users (chat_id, user_id, company_id) VALUES ($1, $2, $3)
			ON CONFLICT (chat_id, user_id) DO NOTHING`, chatID, u, companyID); err != nil {
			return err
		}
	}
	return nil
}

// ChatQueries implements engine.ChatQueries over the chats read model. Safe for
// concurrent use.
type ChatQueries struct{ db *db.DB }

var _ engine.ChatQueries = ChatQueries{}

// NewChatQueries returns the chat queries over d.
func NewChatQueries(d *db.DB) ChatQueries { return ChatQueries{db: d} }

const chatColumns = `c.id, c.company_id, c.uuid, c.title, c.owner_id, c.last_message, c.created_at, c.updated_at`

func scanChat(sc interface{ Scan(...any) error }) (engine.Chat, error) {
	var c engine.Chat
	err := sc.Scan(&c.ID, &c.CompanyID, &c.UUID, &c.Title, &c.OwnerID, &c.LastMessage, timeCol{&c.CreatedAt}, timeCol{&c.UpdatedAt})
	return c, err
}

// ListChats implements engine.ChatQueries. The search matches the folded title or
// last message, or a participant's name (case-insensitive).
func (q ChatQueries) ListChats(ctx context.Context, companyID, userID engine.ID, cq engine.ChatQuery) ([]engine.Chat, int, bool, error) {
	limit := cq.Limit
	if limit <= 0 {
		limit = engine.ChatPageSize
	}
	a := args{}
	where := `FROM chats c JOIN chat_users me ON me.chat_id = c.id AND me.user_id = ` + a.add(userID) +
		` WHERE c.company_id = ` + a.add(companyID) + ` AND c.deleted = 0`
	if s := strings.TrimSpace(cq.Search); s != "" {
		folded := "%" + likeEscape(engine.FoldSearchText(s)) + "%"
		lower := "%" + likeEscape(strings.ToLower(s)) + "%"
		pf := a.add(folded)
		where += ` AND (c.search LIKE ` + pf + ` ESCAPE '\' OR lower(c.last_message) LIKE ` + a.add(lower) + ` ESCAPE '\'` +
			` OR EXISTS (SELECT 1 FROM chat_users cu JOIN users u ON u.id = cu.user_id AND u.company_id = cu.company_id
				WHERE cu.chat_id = c.id AND lower(u.name) LIKE ` + a.add(lower) + ` ESCAPE '\'))`
	}
	var count int
	if err := q.db.SQL.QueryRowContext(ctx, `SELECT COUNT(*) `+where, a.list...).Scan(&count); err != nil {
		return nil, 0, false, fmt.Errorf("count chats: %w", err)
	}
	rows, err := q.db.SQL.QueryContext(ctx, `SELECT `+chatColumns+` `+where+
		` ORDER BY c.updated_at DESC, c.id DESC LIMIT `+strconv.Itoa(limit+1)+` OFFSET `+strconv.Itoa(max(cq.Offset, 0)), a.list...)
	if err != nil {
		return nil, 0, false, fmt.Errorf("list chats: %w", err)
	}
	var out []engine.Chat
	for rows.Next() {
		c, err := scanChat(rows)
		if err != nil {
			rows.Close()
			return nil, 0, false, fmt.Errorf("scan chat: %w", err)
		}
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, false, fmt.Errorf("list chats: %w", err)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	if err := q.withUsers(ctx, out); err != nil {
		return nil, 0, false, err
	}
	if out == nil {
		out = []engine.Chat{}
	}
	return out, count, more, nil
}

// GetChat implements engine.ChatQueries.
func (q ChatQueries) GetChat(ctx context.Context, companyID, id engine.ID) (engine.Chat, error) {
	c, err := scanChat(q.db.SQL.QueryRowContext(ctx, `SELECT `+chatColumns+` FROM chats c
		WHERE c.id = $1 AND c.company_id = $2 AND c.deleted = 0`, id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Chat{}, engine.E(engine.ErrNotFound)
	}
	if err != nil {
		return engine.Chat{}, fmt.Errorf("get chat %d: %w", id, err)
	}
	list := []engine.Chat{c}
	if err := q.withUsers(ctx, list); err != nil {
		return engine.Chat{}, err
	}
	return list[0], nil
}

// withUsers fills each chat's participants (with their names and unread counts) and
// owner.
func (q ChatQueries) withUsers(ctx context.Context, chats []engine.Chat) error {
	if len(chats) == 0 {
		return nil
	}
	ids := make([]engine.ID, len(chats))
	byID := map[engine.ID]*engine.Chat{}
	for i := range chats {
		ids[i] = chats[i].ID
		byID[chats[i].ID] = &chats[i]
		chats[i].Users = []engine.ChatUser{}
	}
	a := args{}
	rows, err := q.db.SQL.QueryContext(ctx, `SELECT cu.chat_id, cu.user_id, cu.unreads, COALESCE(u.name, '')
		FROM chat_users cu LEFT JOIN users u ON u.id = cu.user_id AND u.company_id = cu.company_id
		WHERE cu.chat_id IN (`+a.ids(ids)+`) ORDER BY cu.chat_id, cu.user_id`, a.list...)
	if err != nil {
		return fmt.Errorf("chat users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var cu engine.ChatUser
		var name string
		if err := rows.Scan(&cu.ChatID, &cu.UserID, &cu.Unreads, &name); err != nil {
			return fmt.Errorf("scan chat user: %w", err)
		}
		cu.User = &engine.UserRef{ID: cu.UserID, Name: name}
		c := byID[cu.ChatID]
		c.Users = append(c.Users, cu)
		if cu.UserID == c.OwnerID {
			c.Owner = cu.User
		}
	}
	return rows.Err()
}

// ListChatMessages implements engine.ChatQueries.
func (q ChatQueries) ListChatMessages(ctx context.Context, companyID, chatID engine.ID, page int) ([]engine.ChatMessage, int, bool, error) {
	page = max(page, 1)
	var count int
	if err := q.db.SQL.QueryRowContext(ctx, `SELECT COUNT(*) FROM chat_messages WHERE chat_id = $1 AND company_id = $2`,
		chatID, companyID).Scan(&count); err != nil {
		return nil, 0, false, fmt.Errorf("count chat messages: %w", err)
	}
	rows, err := q.db.SQL.QueryContext(ctx, `SELECT m.id, m.chat_id, m.sender_id, m.body, m.media_path, m.media_name, m.media_type,
		m.created_at, COALESCE(u.name, '')
		FROM chat_messages m LEFT JOIN users u ON u.id = m.sender_id AND u.company_id = m.company_id
		WHERE m.chat_id = $1 AND m.company_id = $2 ORDER BY m.seq DESC LIMIT $3 OFFSET $4`,
		chatID, companyID, engine.ChatMessagePageSize, (page-1)*engine.ChatMessagePageSize)
	if err != nil {
		return nil, 0, false, fmt.Errorf("list chat messages: %w", err)
	}
	defer rows.Close()
	out := []engine.ChatMessage{}
	for rows.Next() {
		var m engine.ChatMessage
		var name string
		if err := rows.Scan(&m.ID, &m.ChatID, &m.SenderID, &m.Message, &m.MediaPath, &m.MediaName, &m.MediaType,
			timeCol{&m.CreatedAt}, &name); err != nil {
			return nil, 0, false, fmt.Errorf("scan chat message: %w", err)
		}
		m.Sender = &engine.UserRef{ID: m.SenderID, Name: name}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, count, page*engine.ChatMessagePageSize < count, nil
}

// likeEscape escapes LIKE's wildcards and its escape character.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
