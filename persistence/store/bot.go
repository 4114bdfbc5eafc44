package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"atende/engine"
	"atende/persistence/db"
)

// Bots implements engine.BotStore on either dialect: the tenant's reception-menu bot
// levels (docs/bots.md).
//
// Safe for concurrent use.
type Bots struct {
	refBase
}

var _ engine.BotStore = (*Bots)(nil)

// NewBots returns the bot level store of d; a nil clock is the system clock.
func NewBots(d *db.DB, clock engine.Clock) *Bots {
	return &Bots{refBase: newRefBase(d, clock)}
}

// maxBotLevels caps a tenant's levels: a menu tree is read on every customer answer.
const maxBotLevels = 500

const botCols = `id, company_id, COALESCE(parent_id, 0), command_bot, description_bot, command_type, show_message,
	COALESCE(user_id, 0), COALESCE(queue_id, 0), created_at, updated_at`

func scanBot(row refScanner) (engine.BotLevel, error) {
	var b engine.BotLevel
	var cmd int
	err := row.Scan(&b.ID, &b.CompanyID, &b.ParentID, &cmd, &b.DescriptionBot, &b.CommandType, &b.ShowMessage,
		&b.UserID, &b.QueueID, refTime{&b.CreatedAt}, refTime{&b.UpdatedAt})
	b.CommandBot = strconv.Itoa(cmd)
	return b, err
}

// List implements engine.BotStore.
func (s *Bots) List(ctx context.Context, companyID engine.ID) ([]engine.BotLevel, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT `+botCols+` FROM bot_levels WHERE company_id = $1
		ORDER BY parent_key, command_bot, id`, companyID)
	if err != nil {
		return nil, fmt.Errorf("list bot levels of %d: %w", companyID, err)
	}
	return scanRows(rows, "list bot levels", scanBot)
}

// Get implements engine.BotStore.
func (s *Bots) Get(ctx context.Context, companyID, id engine.ID) (engine.BotLevel, error) {
	return s.get(ctx, s.db.SQL, companyID, id)
}

func (s *Bots) get(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.BotLevel, error) {
	b, err := scanBot(q.QueryRowContext(ctx, `SELECT `+botCols+` FROM bot_levels WHERE id = $1 AND company_id = $2`,
		id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return b, engine.E(engine.ErrNoBotFound)
	}
	if err != nil {
		return b, fmt.Errorf("get bot level %d: %w", id, err)
	}
	return b, nil
}

// check validates in against the tenant (inside tx): the parent is a menu level of
// the tenant and not self nor below self, the tree stays within engine.BotMaxDepth,
// the queue and user are the tenant's. self is 0 on create.
func (s *Bots) check(ctx context.Context, tx *sql.Tx, companyID, self engine.ID, in engine.BotLevelInput) (engine.BotLevelInput, error) {
	in, err := engine.ValidateBotLevel(in)
	if err != nil {
		return in, err
	}
	if in.ParentID != 0 {
		depth := 0
		for at := in.ParentID; at != 0; depth++ {
			if at == self || depth > engine.BotMaxDepth {
				return in, refFieldError("parentId", engine.MsgInvalidValue)
			}
			p, err := s.get(ctx, tx, companyID, at)
			if engine.CodeOf(err) == engine.ErrNoBotFound {
				return in, refFieldError("parentId", engine.MsgInvalidValue)
			}
			if err != nil {
				return in, err
			}
			if at == in.ParentID && p.CommandType != engine.BotMenu {
				return in, refFieldError("parentId", engine.MsgInvalidValue)
			}
			at = p.ParentID
		}
	}
	if in.QueueID != 0 {
		if err := tenantRowExists(ctx, tx, "queues", companyID, in.QueueID, engine.ErrNoQueueFound); err != nil {
			if engine.CodeOf(err) == engine.ErrNoQueueFound {
				return in, refFieldError("queueId", engine.MsgInvalidValue)
			}
			return in, err
		}
	}
	if in.UserID != 0 {
		if err := tenantRowExists(ctx, tx, "users", companyID, in.UserID, engine.ErrNoUserFound); err != nil {
			if engine.CodeOf(err) == engine.ErrNoUserFound {
				return in, refFieldError("userId", engine.MsgInvalidValue)
			}
			return in, err
		}
	}
	return in, nil
}

// Create implements engine.BotStore.
func (s *Bots) Create(ctx context.Context, companyID engine.ID, in engine.BotLevelInput) (engine.BotLevel, error) {
	var out engine.BotLevel
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		in, err := s.check(ctx, tx, companyID, 0, in)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM bot_levels WHERE company_id = $1`, companyID).Scan(&n); err != nil {
			return fmt.Errorf("count bot levels: %w", err)
		}
		if n >= maxBotLevels {
			return refFieldError("parentId", engine.MsgTooLong)
		}
		cmd, _ := strconv.Atoi(in.CommandBot)
		var id engine.ID
		err = tx.QueryRowContext(ctx, `INSERT INTO bot_levels (company_id, parent_id, parent_key, command_bot,
			description_bot, command_type, show_message, user_id, queue_id, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id`,
			companyID, nullID(in.ParentID), in.ParentID, cmd, in.DescriptionBot, in.CommandType, in.ShowMessage,
			nullID(in.UserID), nullID(in.QueueID), s.ts(s.now())).Scan(&id)
		if db.IsUniqueViolation(err) {
			return refFieldError("commandBot", engine.MsgAlreadyExists)
		}
		if err != nil {
			return fmt.Errorf("insert bot level: %w", err)
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// Update implements engine.BotStore. A level of another tenant is not found before its
// input is validated. A menu level that has children keeps its type.
func (s *Bots) Update(ctx context.Context, companyID, id engine.ID, in engine.BotLevelInput) (engine.BotLevel, error) {
	var out engine.BotLevel
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		cur, err := s.get(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		in, err := s.check(ctx, tx, companyID, id, in)
		if err != nil {
			return err
		}
		if cur.CommandType == engine.BotMenu && in.CommandType != engine.BotMenu {
			var kids int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM bot_levels WHERE parent_id = $1`, id).Scan(&kids); err != nil {
				return fmt.Errorf("count bot children: %w", err)
			}
			if kids > 0 {
				return refFieldError("commandType", engine.MsgInvalidValue)
			}
		}
		cmd, _ := strconv.Atoi(in.CommandBot)
		_, err = tx.ExecContext(ctx, `UPDATE bot_levels SET parent_id = $1, parent_key = $2, command_bot = $3,
			description_bot = $4, command_type = $5, show_message = $6, user_id = $7, queue_id = $8, updated_at = $9
			WHERE id = $10 AND company_id = $11`,
			nullID(in.ParentID), in.ParentID, cmd, in.DescriptionBot, in.CommandType, in.ShowMessage,
			nullID(in.UserID), nullID(in.QueueID), s.ts(s.now()), id, companyID)
		if db.IsUniqueViolation(err) {
			return refFieldError("commandBot", engine.MsgAlreadyExists)
		}
		if err != nil {
			return fmt.Errorf("update bot level %d: %w", id, err)
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// Delete implements engine.BotStore; the foreign key removes the subtree.
func (s *Bots) Delete(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM bot_levels WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete bot level %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete bot level %d: %w", id, err)
	} else if n == 0 {
		return engine.E(engine.ErrNoBotFound)
	}
	return nil
}

// Reorder implements engine.BotStore. The children first move to negative numbers,
// so that the unique index never sees two siblings on one number midway.
func (s *Bots) Reorder(ctx context.Context, companyID, parentID engine.ID, ids []engine.ID) ([]engine.BotLevel, error) {
	var out []engine.BotLevel
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM bot_levels WHERE company_id = $1 AND parent_key = $2`,
			companyID, parentID)
		if err != nil {
			return fmt.Errorf("read bot siblings: %w", err)
		}
		kids, err := scanRows(rows, "read bot siblings", func(r refScanner) (engine.ID, error) {
			var id engine.ID
			return id, r.Scan(&id)
		})
		if err != nil {
			return err
		}
		want := make(map[engine.ID]bool, len(kids))
		for _, k := range kids {
			want[k] = true
		}
		if len(kids) == 0 && parentID != 0 {
			if _, err := s.get(ctx, tx, companyID, parentID); err != nil {
				return err
			}
		}
		if len(ids) != len(kids) {
			return refFieldError("ids", engine.MsgInvalidValue)
		}
		for _, id := range ids {
			if !want[id] {
				return refFieldError("ids", engine.MsgInvalidValue)
			}
			delete(want, id) // a repeated id fails the next time round
		}
		now := s.ts(s.now())
		for i, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE bot_levels SET command_bot = $1 WHERE id = $2`, -(i + 1), id); err != nil {
				return fmt.Errorf("reorder bot level %d: %w", id, err)
			}
		}
		for i, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE bot_levels SET command_bot = $1, updated_at = $2 WHERE id = $3`,
				i+1, now, id); err != nil {
				return fmt.Errorf("reorder bot level %d: %w", id, err)
			}
		}
		out = make([]engine.BotLevel, 0, len(ids))
		for _, id := range ids {
			b, err := s.get(ctx, tx, companyID, id)
			if err != nil {
				return err
			}
			out = append(out, b)
		}
		return nil
	})
	return out, err
}
