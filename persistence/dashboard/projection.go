package dashboard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
)

// ProjectionName is the dashboard projection's checkpoint name.
const ProjectionName = "dashboard"

// DefaultZone is the time zone whose calendar days the buckets follow when Config
// names none: the spec shows times in Cuiabá's zone (section 9).
const DefaultZone = "America/Cuiaba"

// Projection folds ticket events into dash_tickets and dash_buckets (projection
// Runner's Projection and Resetter). Each tenant's buckets follow that tenant's zone
// (dash_zones, see zone.go); Rezone rebuilds one tenant's after its zone changed.
type Projection struct {
	// static after construction
	zoneOf ZoneFunc
	log    zerolog.Logger
	locs   *zoneCache
}

// NewProjection returns the projection. zoneOf gives a tenant's configured zone (in
// cmd/atende, engine.TenantZone); it is asked the first time a tenant's events are
// folded and when Rezone runs. nil means DefaultZone for every tenant.
func NewProjection(zoneOf ZoneFunc, log zerolog.Logger) (*Projection, error) {
	if zoneOf == nil {
		loc, err := time.LoadLocation(DefaultZone)
		if err != nil {
			return nil, fmt.Errorf("dashboard zone: %w", err)
		}
		zoneOf = FixedZone(loc)
	}
	return &Projection{zoneOf: zoneOf, log: log, locs: &zoneCache{m: map[string]*time.Location{}}}, nil
}

// Name implements projection.Projection.
func (p *Projection) Name() string { return ProjectionName }

// Reset implements projection.Resetter: it empties the read model before a replay.
func (p *Projection) Reset(ctx context.Context, tx *sql.Tx, d *db.DB) error {
	for _, s := range []string{`DELETE FROM dash_tickets`, `DELETE FROM dash_buckets`, `DELETE FROM dash_zones`} {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("reset %s: %w", ProjectionName, err)
		}
	}
	return nil
}

// Apply implements projection.Projection: it loads the batch's tickets once, folds
// the events in memory and writes each changed ticket and each changed counter once.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, d *db.DB, events []engine.RecordedEvent) error {
	var ids []engine.ID
	seen := map[engine.ID]bool{}
	for _, ev := range events {
		if id, ok := engine.ParseTicketStream(ev.StreamID); ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	tickets, err := loadTickets(ctx, tx, d.Dialect, ids)
	if err != nil {
		return err
	}
	companies := map[engine.ID]bool{}
	for _, ev := range events {
		if _, ok := engine.ParseTicketStream(ev.StreamID); ok {
			companies[ev.CompanyID] = true
		}
	}
	for _, t := range tickets {
		companies[t.Company] = true
	}
	f := NewFolder(p.locs.load(DefaultZone))
	if f.Zones, err = p.batchZones(ctx, tx, d.Dialect, companies); err != nil {
		return err
	}
	dirty := map[engine.ID]bool{}
	for _, ev := range events {
		id, changed, err := foldEvent(f, tickets, ev)
		if err != nil {
			return err
		}
		if changed {
			dirty[id] = true
		}
	}
	var changed []*Ticket
	for id := range dirty {
		if t := tickets[id]; t.Status != "" {
			changed = append(changed, t)
		}
	}
	sort.Slice(changed, func(i, j int) bool { return changed[i].ID < changed[j].ID })
	if err := writeTickets(ctx, tx, d.Dialect, changed); err != nil {
		return err
	}
	return WriteDeltas(ctx, tx, d.Dialect, f.Deltas)
}

// foldEvent folds one journal event into its ticket of tickets (created when
// missing) and f; changed says the ticket's row must be written. Events of other
// streams are ignored, events of unknown types only move the ticket's version.
func foldEvent(f *Folder, tickets map[engine.ID]*Ticket, ev engine.RecordedEvent) (engine.ID, bool, error) {
	id, ok := engine.ParseTicketStream(ev.StreamID)
	if !ok {
		return 0, false, nil
	}
	t := tickets[id]
	if t == nil {
		t = &Ticket{ID: id}
		tickets[id] = t
	}
	te, err := engine.DecodeTicketEvent(ev.Type, ev.Data)
	if errors.Is(err, engine.ErrUnknownEventType) {
		if ev.Version > t.Version {
			t.Version = ev.Version
			return id, true, nil
		}
		return id, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("apply %s v%d (position %d): %w", ev.StreamID, ev.Version, ev.Position, err)
	}
	changed := ev.Version > t.Version
	f.Fold(t, ev.CompanyID, ev.Version, te)
	return id, changed, nil
}

// querier is a *sql.Tx or *sql.DB.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// maxParams bounds the arguments of one statement. The SQLite driver finds each
// numbered placeholder's argument by a linear search (binding costs the square of the
// arguments), so SQLite statements use positional "?" and stay small.
func maxParams(d db.Dialect) int {
	if d == db.SQLite {
		return 600
	}
	return 4000
}

// placeholder is the n-th (1-based) argument's placeholder.
func placeholder(d db.Dialect, n int) string {
	if d == db.SQLite {
		return "?"
	}
	return "$" + strconv.Itoa(n)
}

func loadTickets(ctx context.Context, q querier, d db.Dialect, ids []engine.ID) (map[engine.ID]*Ticket, error) {
	out := make(map[engine.ID]*Ticket, len(ids))
	chunk := maxParams(d)
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		ph := make([]string, len(part))
		args := make([]any, len(part))
		for i, id := range part {
			ph[i], args[i] = placeholder(d, i+1), id
		}
		rs, err := q.QueryContext(ctx, `SELECT ticket_id, company_id, opened_at, cycle_at, status, queue_id, user_id,
			channel, responded, deleted, version FROM dash_tickets WHERE ticket_id IN (`+strings.Join(ph, ",")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("load dashboard tickets: %w", err)
		}
		for rs.Next() {
			var t Ticket
			var opened, cycle, responded, deleted int64
			if err := rs.Scan(&t.ID, &t.Company, &opened, &cycle, &t.Status, &t.Queue, &t.User, &t.Channel,
				&responded, &deleted, &t.Version); err != nil {
				rs.Close()
				return nil, fmt.Errorf("load dashboard tickets: %w", err)
			}
			t.OpenedAt, t.CycleAt = time.UnixMicro(opened).UTC(), time.UnixMicro(cycle).UTC()
			t.Responded, t.Deleted = responded != 0, deleted != 0
			out[t.ID] = &t
		}
		err = rs.Err()
		rs.Close()
		if err != nil {
			return nil, fmt.Errorf("load dashboard tickets: %w", err)
		}
	}
	return out, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func writeTickets(ctx context.Context, q querier, d db.Dialect, ts []*Ticket) error {
	rows := make([][]any, len(ts))
	for i, t := range ts {
		rows[i] = []any{t.ID, t.Company, t.OpenedAt.UnixMicro(), t.CycleAt.UnixMicro(), t.Status, t.Queue, t.User,
			t.Channel, b2i(t.Responded), b2i(t.Deleted), t.Version}
	}
	return db.InsertRows(ctx, q, d, "dash_tickets", []string{"ticket_id", "company_id", "opened_at", "cycle_at", "status",
		"queue_id", "user_id", "channel", "responded", "deleted", "version"}, nil, rows,
		`ON CONFLICT (ticket_id) DO UPDATE SET company_id = excluded.company_id, opened_at = excluded.opened_at,
			cycle_at = excluded.cycle_at, status = excluded.status, queue_id = excluded.queue_id,
			user_id = excluded.user_id, channel = excluded.channel, responded = excluded.responded,
			deleted = excluded.deleted, version = excluded.version
		WHERE dash_tickets.version < excluded.version`, nil)
}

// WriteDeltas adds deltas to dash_buckets (in key order, so two writers never lock
// rows in opposite orders). Counters that reach zero stay as zero rows.
func WriteDeltas(ctx context.Context, q querier, d db.Dialect, deltas Deltas) error {
	keys := make([]Key, 0, len(deltas))
	for k, n := range deltas {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	rows := make([][]any, len(keys))
	for i, k := range keys {
		rows[i] = []any{k.Company, k.Grain, k.Period, k.Metric, k.Queue, k.User, k.Channel, deltas[k]}
	}
	return db.InsertRows(ctx, q, d, "dash_buckets", []string{"company_id", "grain", "period", "metric", "queue_id",
		"user_id", "channel", "n"}, nil, rows,
		`ON CONFLICT (company_id, grain, period, metric, queue_id, user_id, channel) DO UPDATE SET n = dash_buckets.n + excluded.n`, nil)
}

func keyLess(a, b Key) bool {
	switch {
	case a.Company != b.Company:
		return a.Company < b.Company
	case a.Grain != b.Grain:
		return a.Grain < b.Grain
	case a.Period != b.Period:
		return a.Period < b.Period
	case a.Metric != b.Metric:
		return a.Metric < b.Metric
	case a.Queue != b.Queue:
		return a.Queue < b.Queue
	case a.User != b.User:
		return a.User < b.User
	}
	return a.Channel < b.Channel
}
