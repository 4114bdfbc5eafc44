package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"atende/engine"
	"atende/persistence/db"
)

// Users implements engine.UserStore on either dialect. E-mails are unique across
// tenants (login names no tenant). Users come back with their queues (id, name,
// colour) ordered by folded queue name.
//
// Lists page by OFFSET: the spec's users page asks by pageNumber, a tenant has tens
// to hundreds of users, and the (company_id, name_key, id) index serves the order, so
// skipping a few pages costs microseconds; keyset paging would add a cursor to a wire
// contract that has none.
//
// Safe for concurrent use.
type Users struct {
	refBase
}

var _ engine.UserStore = (*Users)(nil)

// NewUsers returns the user store of d; a nil clock is the system clock.
func NewUsers(d *db.DB, clock engine.Clock) *Users {
	return &Users{refBase: newRefBase(d, clock)}
}

const userCols = `id, company_id, name, email, password_hash, profile, whatsapp_id, token_version, created_at, updated_at`

func scanUser(row refScanner) (engine.User, error) {
	var u engine.User
	var wid sql.NullInt64
	err := row.Scan(&u.ID, &u.CompanyID, &u.Name, &u.Email, &u.PasswordHash, &u.Profile, &wid, &u.TokenVersion,
		refTime{&u.CreatedAt}, refTime{&u.UpdatedAt})
	u.ConnectionID = wid.Int64
	u.Queues = []engine.Queue{}
	return u, err
}

// userSearch is the search column: folded name, separator, e-mail.
func userSearch(name, email string) string {
	return refFold(name) + refSep + strings.ToLower(email)
}

func nullID(id engine.ID) any {
	if id == 0 {
		return nil
	}
	return id
}

// Create implements engine.UserStore.
func (s *Users) Create(ctx context.Context, u engine.NewUser) (engine.User, error) {
	var out engine.User
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = s.create(ctx, tx, u)
		return err
	})
	return out, err
}

// create inserts u and its queues inside tx (also the first admin of a new tenant,
// Companies.CreateWithAdmin).
func (s *Users) create(ctx context.Context, tx *sql.Tx, u engine.NewUser) (engine.User, error) {
	now := s.now()
	var id engine.ID
	err := tx.QueryRowContext(ctx, `INSERT INTO users (company_id, name, name_key, search, email, password_hash,
		profile, whatsapp_id, token_version, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, $9) RETURNING id`,
		u.CompanyID, u.Name, refFold(u.Name), userSearch(u.Name, u.Email), u.Email, u.PasswordHash, u.Profile,
		nullID(u.ConnectionID), s.ts(now)).Scan(&id)
	if db.IsUniqueViolation(err) {
		return engine.User{}, engine.Wrap(engine.ErrEmailAlreadyExists, err)
	}
	if err != nil {
		return engine.User{}, fmt.Errorf("insert user: %w", err)
	}
	if err := s.setQueues(ctx, tx, u.CompanyID, id, u.QueueIDs); err != nil {
		return engine.User{}, err
	}
	return s.get(ctx, tx, u.CompanyID, id)
}

// Update implements engine.UserStore.
func (s *Users) Update(ctx context.Context, companyID, id engine.ID, ch engine.UserChange) (engine.User, error) {
	now := s.now()
	var out engine.User
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		cur, err := s.get(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		name, email := cur.Name, cur.Email
		set := []string{}
		args := []any{}
		add := func(col string, v any) {
			args = append(args, v)
			set = append(set, fmt.Sprintf("%s = $%d", col, len(args)))
		}
		if ch.Name != nil {
			name = *ch.Name
			add("name", name)
			add("name_key", refFold(name))
		}
		if ch.Email != nil {
			email = *ch.Email
			add("email", email)
		}
		if ch.Name != nil || ch.Email != nil {
			add("search", userSearch(name, email))
		}
		if ch.PasswordHash != nil {
			add("password_hash", *ch.PasswordHash)
		}
		if ch.Profile != nil {
			add("profile", *ch.Profile)
		}
		if ch.ConnectionID != nil {
			add("whatsapp_id", nullID(*ch.ConnectionID))
		}
		add("updated_at", s.ts(now))
		if ch.PasswordHash != nil || ch.Profile != nil || ch.QueueIDs != nil || ch.BumpTokenVersion {
			set = append(set, "token_version = token_version + 1")
		}
		args = append(args, id, companyID)
		_, err = tx.ExecContext(ctx, fmt.Sprintf(`UPDATE users SET %s WHERE id = $%d AND company_id = $%d`,
			strings.Join(set, ", "), len(args)-1, len(args)), args...)
		if db.IsUniqueViolation(err) {
			return engine.Wrap(engine.ErrEmailAlreadyExists, err)
		}
		if err != nil {
			return fmt.Errorf("update user %d: %w", id, err)
		}
		if ch.QueueIDs != nil {
			if err := s.setQueues(ctx, tx, companyID, id, *ch.QueueIDs); err != nil {
				return err
			}
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// setQueues replaces the user's queues. Every id must be a queue of the tenant, else
// ErrValidation{queueIds: Invalid value}.
func (s *Users) setQueues(ctx context.Context, tx *sql.Tx, companyID, userID engine.ID, queueIDs []engine.ID) error {
	ids := engine.NormalizeIDs(queueIDs)
	if len(ids) > 0 {
		args := []any{companyID}
		for _, id := range ids {
			args = append(args, id)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM queues WHERE company_id = $1 AND id IN (`+
			refPlaceholders(2, len(ids))+`)`, args...).Scan(&n); err != nil {
			return fmt.Errorf("check queues of user %d: %w", userID, err)
		}
		if n != len(ids) {
			return refFieldError("queueIds", engine.MsgInvalidValue)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM user_queues WHERE user_id = $1 AND company_id = $2`,
		userID, companyID); err != nil {
		return fmt.Errorf("clear queues of user %d: %w", userID, err)
	}
	for _, q := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO user_queues (company_id, user_id, queue_id) VALUES ($1, $2, $3)`,
			companyID, userID, q); err != nil {
			return fmt.Errorf("add queue %d to user %d: %w", q, userID, err)
		}
	}
	return nil
}

// Delete implements engine.UserStore. Queue links and refresh tokens go with the row
// (ON DELETE CASCADE).
func (s *Users) Delete(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM users WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete user %d: %w", id, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("delete user %d: %w", id, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNoUserFound)
	}
	return nil
}

// Get implements engine.UserStore.
func (s *Users) Get(ctx context.Context, companyID, id engine.ID) (engine.User, error) {
	return s.get(ctx, s.db.SQL, companyID, id)
}

func (s *Users) get(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.User, error) {
	u, err := scanUser(q.QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE id = $1 AND company_id = $2`,
		id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return u, engine.E(engine.ErrNoUserFound)
	}
	if err != nil {
		return u, fmt.Errorf("get user %d: %w", id, err)
	}
	us := []engine.User{u}
	if err := s.withQueues(ctx, q, companyID, us); err != nil {
		return u, err
	}
	return us[0], nil
}

// ByEmail implements engine.UserStore.
func (s *Users) ByEmail(ctx context.Context, email string) (engine.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	u, err := scanUser(s.db.SQL.QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE email = $1`, email))
	if errors.Is(err, sql.ErrNoRows) {
		return u, engine.E(engine.ErrNoUserFound)
	}
	if err != nil {
		return u, fmt.Errorf("get user by e-mail: %w", err)
	}
	us := []engine.User{u}
	if err := s.withQueues(ctx, s.db.SQL, u.CompanyID, us); err != nil {
		return u, err
	}
	return us[0], nil
}

// List implements engine.UserStore: Search is folded like names (accents and case
// ignored) and matched literally (% and _ are plain characters) against name and
// e-mail.
func (s *Users) List(ctx context.Context, companyID engine.ID, f engine.UserFilter) ([]engine.User, int, error) {
	if f.Limit <= 0 || f.Offset < 0 {
		return nil, 0, fmt.Errorf("list users: bad page limit %d offset %d", f.Limit, f.Offset)
	}
	where := `company_id = $1`
	args := []any{companyID}
	if term := refFold(f.Search); term != "" {
		if len([]rune(term)) > refMaxTerm {
			return []engine.User{}, 0, nil
		}
		args = append(args, refLike(term))
		where += ` AND search LIKE $2 ESCAPE '\'`
	}
	var count int
	if err := s.db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE `+where, args...).Scan(&count); err != nil {
		return nil, 0, fmt.Errorf("count users of %d: %w", companyID, err)
	}
	args = append(args, f.Limit, f.Offset)
	users, err := s.query(ctx, companyID, fmt.Sprintf(`SELECT %s FROM users WHERE %s ORDER BY name_key, id LIMIT $%d OFFSET $%d`,
		userCols, where, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, err
	}
	return users, count, nil
}

// All implements engine.UserStore.
func (s *Users) All(ctx context.Context, companyID engine.ID) ([]engine.User, error) {
	return s.query(ctx, companyID, `SELECT `+userCols+` FROM users WHERE company_id = $1 ORDER BY name_key, id`, companyID)
}

func (s *Users) query(ctx context.Context, companyID engine.ID, query string, args ...any) ([]engine.User, error) {
	rows, err := s.db.SQL.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list users of %d: %w", companyID, err)
	}
	out, err := scanRows(rows, fmt.Sprintf("list users of %d", companyID), scanUser)
	if err != nil {
		return nil, err
	}
	if err := s.withQueues(ctx, s.db.SQL, companyID, out); err != nil {
		return nil, err
	}
	return out, nil
}

// withQueues fills the queues of users (all of companyID) in one query.
func (s *Users) withQueues(ctx context.Context, q refQuerier, companyID engine.ID, users []engine.User) error {
	if len(users) == 0 {
		return nil
	}
	idx := make(map[engine.ID]int, len(users))
	args := []any{companyID}
	for i, u := range users {
		idx[u.ID] = i
		args = append(args, u.ID)
	}
	rows, err := q.QueryContext(ctx, `SELECT uq.user_id, qu.id, qu.name, qu.color
		FROM user_queues uq JOIN queues qu ON qu.id = uq.queue_id AND qu.company_id = uq.company_id
		WHERE uq.company_id = $1 AND uq.user_id IN (`+refPlaceholders(2, len(users))+`)`, args...)
	if err != nil {
		return fmt.Errorf("queues of users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var uid engine.ID
		var qu engine.Queue
		if err := rows.Scan(&uid, &qu.ID, &qu.Name, &qu.Color); err != nil {
			return fmt.Errorf("queues of users: %w", err)
		}
		if i, ok := idx[uid]; ok {
			users[i].Queues = append(users[i].Queues, qu)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("queues of users: %w", err)
	}
	for i := range users {
		qs := users[i].Queues
		sort.SliceStable(qs, func(a, b int) bool {
			ka, kb := refFold(qs[a].Name), refFold(qs[b].Name)
			if ka != kb {
				return ka < kb
			}
			return qs[a].ID < qs[b].ID
		})
	}
	return nil
}

// Auth implements engine.UserStore.
func (s *Users) Auth(ctx context.Context, id engine.ID) (engine.UserAuth, error) {
	a := engine.UserAuth{UserID: id}
	// A user of a disabled tenant is as good as gone: its access tokens are refused.
	err := s.db.SQL.QueryRowContext(ctx, `SELECT u.company_id, u.token_version FROM users u
		JOIN companies c ON c.id = u.company_id WHERE u.id = $1 AND c.disabled_at IS NULL`, id).
		Scan(&a.CompanyID, &a.TokenVersion)
	if errors.Is(err, sql.ErrNoRows) {
		return a, engine.E(engine.ErrNoUserFound)
	}
	if err != nil {
		return a, fmt.Errorf("auth of user %d: %w", id, err)
	}
	return a, nil
}
