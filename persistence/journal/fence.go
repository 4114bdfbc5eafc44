package journal

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrFenced is answered by Append on a Store whose member was revoked (RevokeMember):
// the cluster declared this process dead, and another node may already serve what
// it served. Nothing of the append was written. The process must stop serving.
var ErrFenced = errors.New("journal: this cluster member was fenced off; its appends are refused")

// fenceNamespace is the first key of the advisory locks that fence members
// ("jf"); the second is memberKey of the member id.
const fenceNamespace int32 = 0x6a66

// fencePrune is how long revoked members' rows are kept before a registration
// removes them.
const fencePrune = 24 * time.Hour

// memberKey maps a member id onto the advisory lock's second key. Two ids that
// share a key only make one's revocation wait for the other's transactions too.
func memberKey(member string) int32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(member))
	return int32(h.Sum32() & math.MaxInt32)
}

// token is the member a PostgreSQL Store appends as.
type token struct {
	member string
	key    int32
}

// FenceAs registers member — this process's cluster member id, new at every start
// — and from then on every group-commit transaction of s checks, under a shared
// advisory lock on member, that member was not revoked; once it was, Append answers
// ErrFenced and Fenced is closed. On SQLite (one process, nothing to fence) it does
// nothing. Call it once, before the process serves.
func (s *Store) FenceAs(ctx context.Context, member string) error {
	if member == "" {
		return errors.New("journal: fence: empty member id")
	}
	b, ok := s.be.(*postgresBackend)
	if !ok {
		return nil
	}
	if _, err := b.pool.Exec(ctx, `DELETE FROM journal_fences WHERE revoked_at < now() - make_interval(secs => $1)`,
		fencePrune.Seconds()); err != nil {
		return fmt.Errorf("journal: fence: prune: %w", err)
	}
	if _, err := b.pool.Exec(ctx, `INSERT INTO journal_fences (member) VALUES ($1)`, member); err != nil {
		return fmt.Errorf("journal: fence: register %s: %w", member, err)
	}
	b.fence.Store(&token{member: member, key: memberKey(member)})
	return nil
}

// RevokeMember fences member off: it waits for member's group-commit transactions in
// flight to end (committed, rolled back, or ended by the server's
// idle_in_transaction_session_timeout when member is stalled), then marks it revoked,
// so every later transaction of member is refused. A member not registered yet is
// recorded revoked, so that its FenceAs fails. It reports whether this call revoked
// it (false: already revoked). On SQLite it does nothing.
func (s *Store) RevokeMember(ctx context.Context, member string) (bool, error) {
	b, ok := s.be.(*postgresBackend)
	if !ok {
		return false, nil
	}
	var revoked bool
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1::int4, $2::int4)`, fenceNamespace, memberKey(member)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO journal_fences (member, revoked_at) VALUES ($1, now())
			ON CONFLICT (member) DO UPDATE SET revoked_at = now() WHERE journal_fences.revoked_at IS NULL`, member)
		revoked = tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("journal: revoke %s: %w", member, err)
	}
	return revoked, nil
}

// Fenced is closed once an append was refused with ErrFenced; never on SQLite or
// before FenceAs.
func (s *Store) Fenced() <-chan struct{} { return s.fenced }

// noteFenced closes Fenced the first time err is ErrFenced.
func (s *Store) noteFenced(err error) {
	if errors.Is(err, ErrFenced) {
		s.fencedOnce.Do(func() {
			s.log.Error().Msg("this member was fenced off by the cluster: appends are refused")
			close(s.fenced)
		})
	}
}
