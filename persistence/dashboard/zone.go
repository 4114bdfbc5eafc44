package dashboard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// ZoneFunc gives a tenant's configured time zone, read through q: the caller's
// transaction when it holds one (see db.Querier), the pool otherwise.
type ZoneFunc func(ctx context.Context, q db.Querier, companyID engine.ID) (*time.Location, error)

// FixedZone is a ZoneFunc giving loc to every tenant.
func FixedZone(loc *time.Location) ZoneFunc {
	return func(context.Context, db.Querier, engine.ID) (*time.Location, error) { return loc, nil }
}

// zoneCache keeps loaded zones by name: time.LoadLocation parses the zone database
// each time.
type zoneCache struct {
	mu sync.Mutex
	m  map[string]*time.Location // guarded by mu
}

func (c *zoneCache) load(name string) *time.Location {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.m[name]; l != nil {
		return l
	}
	l, err := time.LoadLocation(name)
	if err != nil || name == "" || name == "Local" {
		// A name that no longer loads: the default, as engine.TenantZone does.
		if l, err = time.LoadLocation(DefaultZone); err != nil {
			l = time.UTC
		}
	}
	c.m[name] = l
	return l
}

// Source reads one tenant's events of the journal in position order
// (journal.Store.ReadCompany), or within a transaction the caller holds
// (journal.Store.ReadCompanyWithin).
type Source interface {
	ReadCompany(ctx context.Context, companyID engine.ID, afterPosition int64, limit int) ([]engine.RecordedEvent, error)
	ReadCompanyWithin(ctx context.Context, tx *sql.Tx, companyID engine.ID, afterPosition int64, limit int) ([]engine.RecordedEvent, error)
}

// batchZones gives the zone of each company's buckets: its dash_zones row, read in
// the batch's transaction (the checkpoint lock orders it with Rezone). A company
// without one is new to the projection: its configured zone is recorded now.
func (p *Projection) batchZones(ctx context.Context, tx *sql.Tx, d db.Dialect, companies map[engine.ID]bool) (map[engine.ID]*time.Location, error) {
	out := make(map[engine.ID]*time.Location, len(companies))
	ids := make([]any, 0, len(companies))
	ph := make([]string, 0, len(companies))
	for c := range companies {
		ids = append(ids, c)
		ph = append(ph, placeholder(d, len(ids)))
	}
	if len(ids) == 0 {
		return out, nil
	}
	rs, err := tx.QueryContext(ctx, `SELECT company_id, zone FROM dash_zones WHERE company_id IN (`+strings.Join(ph, ",")+`)`, ids...)
	if err != nil {
		return nil, fmt.Errorf("dashboard zones: %w", err)
	}
	for rs.Next() {
		var c engine.ID
		var name string
		if err := rs.Scan(&c, &name); err != nil {
			rs.Close()
			return nil, fmt.Errorf("dashboard zones: %w", err)
		}
		out[c] = p.locs.load(name)
	}
	err = rs.Err()
	rs.Close()
	if err != nil {
		return nil, fmt.Errorf("dashboard zones: %w", err)
	}
	for c := range companies {
		if out[c] != nil {
			continue
		}
		loc, err := p.zoneOf(ctx, tx, c)
		if err != nil {
			return nil, fmt.Errorf("dashboard zone of tenant %d: %w", c, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO dash_zones (company_id, zone) VALUES ($1, $2)`, c, loc.String()); err != nil {
			return nil, fmt.Errorf("dashboard zone of tenant %d: %w", c, err)
		}
		out[c] = p.locs.load(loc.String())
	}
	return out, nil
}

// BucketZone is the zone companyID's buckets are in (the zone GET /dashboard reads its
// dates in): its dash_zones row, or its configured zone when nothing of it was folded.
func (p *Projection) BucketZone(d *db.DB) ZoneFunc {
	return func(ctx context.Context, q db.Querier, companyID engine.ID) (*time.Location, error) {
		var name string
		err := q.QueryRowContext(ctx, `SELECT zone FROM dash_zones WHERE company_id = $1`, companyID).Scan(&name)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return p.zoneOf(ctx, q, companyID)
		case err != nil:
			return nil, fmt.Errorf("dashboard zone: %w", err)
		}
		return p.locs.load(name), nil
	}
}

// rezoneRefolded, when set (by tests), runs between the re-fold outside the lock and
// the transaction that completes it.
var rezoneRefolded func()

// rezoneReadLimit is how many journal events Rezone reads at a time.
const rezoneReadLimit = 5000

// Rezone rebuilds companyID's buckets in its configured zone when they are in
// another one, and says whether it did. Other tenants' projection goes on meanwhile:
// the tenant's ticket events up to the projection's checkpoint (read by tenant) are
// re-folded outside any lock; then, in one transaction holding the checkpoint (FOR UPDATE on
// PostgreSQL, SQLite's single writer), the events the projection applied since are
// folded too, the tenant's buckets are replaced and its dash_zones row is set. That
// transaction first checks the setting and the row again, so when several nodes (or
// several changes) ask at once, one rebuilds, the others find nothing to do, and a
// rebuild overtaken by a later change gives way to that change's. dash_tickets
// holds no zone-dependent value and is kept.
func (p *Projection) Rezone(ctx context.Context, d *db.DB, src Source, companyID engine.ID) (bool, error) {
	loc, err := p.zoneOf(ctx, d.SQL, companyID)
	if err != nil {
		return false, fmt.Errorf("rezone tenant %d: %w", companyID, err)
	}
	want := p.locs.load(loc.String()).String()
	current := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) (string, bool, error) {
		var name string
		err := q.QueryRowContext(ctx, `SELECT zone FROM dash_zones WHERE company_id = $1`, companyID).Scan(&name)
		if errors.Is(err, sql.ErrNoRows) {
			return "", false, nil
		}
		return name, err == nil, err
	}
	if name, ok, err := current(d.SQL); err != nil {
		return false, fmt.Errorf("rezone tenant %d: %w", companyID, err)
	} else if ok && name == want {
		return false, nil
	}

	f := NewFolder(p.locs.load(want))
	tickets := map[engine.ID]*Ticket{}
	var upTo int64
	if err := d.SQL.QueryRowContext(ctx, `SELECT position FROM projection_checkpoints WHERE name = $1`, ProjectionName).Scan(&upTo); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("rezone tenant %d: %w", companyID, err)
	}
	after, err := foldTenant(ctx, src.ReadCompany, f, tickets, companyID, 0, upTo)
	if err != nil {
		return false, fmt.Errorf("rezone tenant %d: %w", companyID, err)
	}

	if rezoneRefolded != nil {
		rezoneRefolded()
	}

	done := false
	err = d.Tx(ctx, func(tx *sql.Tx) error {
		q := `SELECT position FROM projection_checkpoints WHERE name = $1`
		if d.Dialect == db.Postgres {
			q += ` FOR UPDATE`
		}
		var pos int64
		if err := tx.QueryRowContext(ctx, q, ProjectionName).Scan(&pos); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// The setting changed again since this rebuild began: the rebuild the later
		// change asked for puts the tenant in the right zone.
		if now, err := p.zoneOf(ctx, tx, companyID); err != nil {
			return err
		} else if p.locs.load(now.String()).String() != want {
			return nil
		}
		name, ok, err := current(tx)
		switch {
		case err != nil:
			return err
		case ok && name == want:
			return nil // rebuilt by another node meanwhile
		case !ok:
			// Nothing of the tenant folded yet: its first batch will use this zone.
			_, err := tx.ExecContext(ctx, `INSERT INTO dash_zones (company_id, zone) VALUES ($1, $2)`, companyID, want)
			return err
		}
		if pos < after {
			// The checkpoint went back (a Reset): the replay places everything anew.
			_, err := tx.ExecContext(ctx, `UPDATE dash_zones SET zone = $2 WHERE company_id = $1`, companyID, want)
			done = err == nil
			return err
		}
		within := func(ctx context.Context, companyID engine.ID, after int64, limit int) ([]engine.RecordedEvent, error) {
			return src.ReadCompanyWithin(ctx, tx, companyID, after, limit)
		}
		if _, err := foldTenant(ctx, within, f, tickets, companyID, after, pos); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM dash_buckets WHERE company_id = $1`, companyID); err != nil {
			return err
		}
		if err := WriteDeltas(ctx, tx, d.Dialect, f.Deltas); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE dash_zones SET zone = $2 WHERE company_id = $1`, companyID, want); err != nil {
			return err
		}
		done = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("rezone tenant %d: %w", companyID, err)
	}
	if done {
		p.log.Info().Int64("company", companyID).Str("zone", want).Msg("dashboard buckets rebuilt in the tenant's zone")
	}
	return done, nil
}

// foldTenant folds companyID's ticket events of positions after+1..upTo, read by
// read, into f and tickets, and returns the position it reached. It reads the
// tenant's events only (the events_company index), not the whole journal.
func foldTenant(ctx context.Context, read func(ctx context.Context, companyID engine.ID, after int64, limit int) ([]engine.RecordedEvent, error),
	f *Folder, tickets map[engine.ID]*Ticket, companyID engine.ID, after, upTo int64) (int64, error) {
	for after < upTo {
		evs, err := read(ctx, companyID, after, rezoneReadLimit)
		if err != nil {
			return after, err
		}
		if len(evs) == 0 {
			return after, nil
		}
		for _, ev := range evs {
			if ev.Position > upTo {
				return upTo, nil
			}
			after = ev.Position
			if ev.CompanyID != companyID {
				return after, fmt.Errorf("journal read of tenant %d gave an event of tenant %d", companyID, ev.CompanyID)
			}
			if _, _, err := foldEvent(f, tickets, ev); err != nil {
				return after, err
			}
		}
	}
	return after, nil
}

// TenantsToRezone lists the tenants whose buckets are in a zone other than their
// configured one (a node stopped between a zone change and its rebuild): a starting
// node rebuilds them.
func (p *Projection) TenantsToRezone(ctx context.Context, d *db.DB) ([]engine.ID, error) {
	rs, err := d.SQL.QueryContext(ctx, `SELECT company_id, zone FROM dash_zones ORDER BY company_id`)
	if err != nil {
		return nil, fmt.Errorf("dashboard zones: %w", err)
	}
	type row struct {
		c    engine.ID
		zone string
	}
	var rows []row
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.c, &r.zone); err != nil {
			rs.Close()
			return nil, fmt.Errorf("dashboard zones: %w", err)
		}
		rows = append(rows, r)
	}
	err = rs.Err()
	rs.Close()
	if err != nil {
		return nil, fmt.Errorf("dashboard zones: %w", err)
	}
	var out []engine.ID
	for _, r := range rows {
		loc, err := p.zoneOf(ctx, d.SQL, r.c)
		if err != nil {
			return nil, fmt.Errorf("dashboard zone of tenant %d: %w", r.c, err)
		}
		if p.locs.load(loc.String()).String() != r.zone {
			out = append(out, r.c)
		}
	}
	return out, nil
}
