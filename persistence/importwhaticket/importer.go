package importwhaticket

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/store"
)

// Defaults of Config's zero fields.
const (
	DefaultCompanyName = "Whaticket"
	DefaultSource      = "whaticket"
	DefaultBatch       = 512
	DefaultWorkers     = 64
	// idBlock is how many ids the importer reserves per round trip.
	idBlock = 10000
	// maxAppend bounds the events of one append; a longer ticket is written in
	// several appends, each expecting the version the previous one left.
	maxAppend = 2000
)

// Config says what to import where.
type Config struct {
	// From is the whaticket database: postgres://… or mysql://user:pw@host/db.
	From string
	// DB is Atende's database (migrated); Journal its journal. The caller closes both.
	DB      *db.DB
	Journal engine.Journal
	// CompanyID is the tenant to import into; 0 finds the tenant named CompanyName,
	// creating it when there is none.
	CompanyID   engine.ID
	CompanyName string // "" is DefaultCompanyName
	// Source names the whaticket installation in import_map ("" is DefaultSource):
	// two installations imported into one tenant need two names.
	Source string
	// Batch is how many tickets are decided and appended together (0: DefaultBatch);
	// Workers how many appends of a batch run at once (0: DefaultWorkers).
	Batch, Workers int
	// MediaBaseURL, when set, turns whaticket's stored media file names into links
	// under it (whaticket serves them at <backend>/public/<file>); otherwise the
	// file name is kept as the message's media URL.
	MediaBaseURL string
	// Progress receives a progress line (nil: none); Terminal redraws one line with
	// \r instead of printing a line every few seconds.
	Progress io.Writer
	Terminal bool
	// AfterBatch, when set, is called after each batch of tickets with the counts so
	// far; an error stops the import (tests inject faults with it).
	AfterBatch func(Report) error
	Log        zerolog.Logger
}

// Report counts what a run did. Created counts rows written by this run per kind,
// Existing rows an earlier run had written (for messages: the source rows of
// tickets an earlier run finished), Skipped rows left out per reason.
type Report struct {
	CompanyID engine.ID
	Created   map[string]int
	Existing  map[string]int
	Skipped   map[string]int
	// Adjusted counts rows imported with a change, per change (a body clipped, a
	// media link dropped).
	Adjusted map[string]int
	// Events is the number of journal events appended.
	Events  int
	Elapsed time.Duration
	// Steps is how long each step took, in order ("contacts 1.2s").
	Steps []string
}

// tally is a Report under construction, shared by the workers.
type tally struct {
	mu sync.Mutex // guards r
	r  Report
}

func newTally() *tally {
	return &tally{r: Report{Created: map[string]int{}, Existing: map[string]int{}, Skipped: map[string]int{},
		Adjusted: map[string]int{}}}
}

func (t *tally) created(kind string, n int)  { t.add(t.r.Created, kind, n) }
func (t *tally) existing(kind string, n int) { t.add(t.r.Existing, kind, n) }
func (t *tally) skip(reason string, n int)   { t.add(t.r.Skipped, reason, n) }
func (t *tally) adjust(change string, n int) { t.add(t.r.Adjusted, change, n) }
func (t *tally) events(n int) {
	t.mu.Lock()
	t.r.Events += n
	t.mu.Unlock()
}

func (t *tally) add(m map[string]int, k string, n int) {
	if n == 0 {
		return
	}
	t.mu.Lock()
	m[k] += n
	t.mu.Unlock()
}

// snapshot copies the report.
func (t *tally) snapshot() Report {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.r
	r.Created, r.Existing, r.Skipped = copyMap(t.r.Created), copyMap(t.r.Existing), copyMap(t.r.Skipped)
	r.Adjusted = copyMap(t.r.Adjusted)
	r.Steps = append([]string(nil), t.r.Steps...)
	return r
}

func copyMap(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Summary is the report as lines for a terminal.
func (r Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "imported into tenant %d in %s (%d journal events)\n", r.CompanyID, r.Elapsed.Round(time.Millisecond), r.Events)
	if len(r.Steps) > 0 {
		fmt.Fprintf(&b, "  steps: %s\n", strings.Join(r.Steps, ", "))
	}
	kinds := map[string]bool{}
	for k := range r.Created {
		kinds[k] = true
	}
	for k := range r.Existing {
		kinds[k] = true
	}
	for _, k := range sortedKeys(kinds) {
		fmt.Fprintf(&b, "  %-14s %8d new  %8d already imported\n", k, r.Created[k], r.Existing[k])
	}
	for _, part := range []struct {
		title string
		m     map[string]int
	}{{"skipped (nothing of them written):", r.Skipped}, {"imported with a change:", r.Adjusted}} {
		if len(part.m) == 0 {
			continue
		}
		b.WriteString(part.title + "\n")
		keys := map[string]bool{}
		for k := range part.m {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			fmt.Fprintf(&b, "  %8d  %s\n", part.m[k], k)
		}
	}
	return b.String()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// importer is one run.
type importer struct {
	cfg     Config
	src     *source
	company engine.ID
	m       *mapping
	t       *tally
	ids     *db.IDs
	log     zerolog.Logger

	users       *store.Users
	queues      *store.Queues
	tags        *store.Tags
	contacts    *store.Contacts
	quick       *store.QuickAnswers
	settings    *store.Settings
	connections *connection.Store
	guard       *connection.Guard
}

// Run imports cfg.From into the tenant and reports what it did. An error leaves
// what was written in place: running again continues.
func Run(ctx context.Context, cfg Config) (Report, error) {
	start := time.Now()
	if cfg.DB == nil || cfg.Journal == nil {
		return Report{}, errors.New("import: DB and Journal are required")
	}
	if cfg.CompanyName == "" {
		cfg.CompanyName = DefaultCompanyName
	}
	if cfg.Source == "" {
		cfg.Source = DefaultSource
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	src, err := openSource(ctx, cfg.From)
	if err != nil {
		return Report{}, err
	}
	defer src.close()
	d := cfg.DB
	im := &importer{cfg: cfg, src: src, t: newTally(), ids: db.NewIDs(d, idBlock), log: cfg.Log,
		users: store.NewUsers(d, nil), queues: store.NewQueues(d, nil), tags: store.NewTags(d, nil),
		contacts: store.NewContacts(d, nil), quick: store.NewQuickAnswers(d, nil), settings: store.NewSettings(d, nil),
		connections: connection.New(d, nil), guard: connection.NewGuard(d)}
	if im.company, err = im.tenant(ctx); err != nil {
		return Report{}, err
	}
	im.t.r.CompanyID = im.company
	if im.m, err = loadMapping(ctx, d, im.company, cfg.Source); err != nil {
		return Report{}, err
	}
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"queues", im.importQueues},
		{"connections", im.importWhatsapps},
		{"users", im.importUsers},
		{"tags", im.importTags},
		{"quick answers", im.importQuickAnswers},
		{"settings", im.importSettings},
		{"contacts", im.importContacts},
		{"tickets", im.importTickets},
	}
	for _, s := range steps {
		began := time.Now()
		err := s.fn(ctx)
		im.t.mu.Lock()
		im.t.r.Steps = append(im.t.r.Steps, s.name+" "+time.Since(began).Round(time.Millisecond).String())
		im.t.mu.Unlock()
		if err != nil {
			r := im.t.snapshot()
			r.Elapsed = time.Since(start)
			return r, fmt.Errorf("import %s: %w", s.name, err)
		}
	}
	r := im.t.snapshot()
	r.Elapsed = time.Since(start)
	return r, nil
}

// tenant is the tenant to import into: cfg.CompanyID, or the one named
// cfg.CompanyName, created with its default settings when missing.
func (im *importer) tenant(ctx context.Context) (engine.ID, error) {
	companies := store.NewCompanies(im.cfg.DB, nil)
	if im.cfg.CompanyID != 0 {
		c, err := companies.Get(ctx, im.cfg.CompanyID)
		if err != nil {
			return 0, fmt.Errorf("tenant %d: %w", im.cfg.CompanyID, err)
		}
		return c.ID, nil
	}
	c, err := companies.ByName(ctx, im.cfg.CompanyName)
	if err == nil {
		return c.ID, nil
	}
	if engine.CodeOf(err) != engine.ErrNoTenantFound {
		return 0, err
	}
	if c, err = companies.Create(ctx, engine.Company{Name: im.cfg.CompanyName}); err != nil {
		return 0, fmt.Errorf("create tenant %q: %w", im.cfg.CompanyName, err)
	}
	if err := im.settings.EnsureDefaults(ctx, c.ID); err != nil {
		return 0, err
	}
	im.log.Info().Int64("tenant", c.ID).Str("name", c.Name).Msg("import: tenant created")
	return c.ID, nil
}

// mapping is import_map of one tenant and source, loaded whole at the start (a
// million-message shop has tens of thousands of tickets and contacts).
type mapping struct {
	d       *db.DB
	company engine.ID
	source  string

	mu   sync.Mutex // guards rows, through
	rows map[string]map[string]engine.ID
	// through is import_progress.tickets_done_through: every claimed ticket with a
	// source id up to it is written whole.
	through int64
}

func loadMapping(ctx context.Context, d *db.DB, company engine.ID, source string) (*mapping, error) {
	m := &mapping{d: d, company: company, source: source, rows: map[string]map[string]engine.ID{}}
	rows, err := d.SQL.QueryContext(ctx, `SELECT kind, source_id, target_id FROM import_map
		WHERE company_id = $1 AND source = $2`, company, source)
	if err != nil {
		return nil, fmt.Errorf("load import_map: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, sid string
		var tid engine.ID
		if err := rows.Scan(&kind, &sid, &tid); err != nil {
			return nil, err
		}
		m.set(kind, sid, tid)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	err = d.SQL.QueryRowContext(ctx, `SELECT tickets_done_through FROM import_progress
		WHERE company_id = $1 AND source = $2`, company, source).Scan(&m.through)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load import_progress: %w", err)
	}
	return m, nil
}

// isDone says whether the ticket of source id sid has its whole stream written: it
// was claimed and the progress mark has passed it, or an import before migration
// 1140 marked it done in a row of its own.
func (m *mapping) isDone(sid int64) bool {
	if _, old := m.get("ticket.done", sid); old {
		return true
	}
	_, claimed := m.get("ticket", sid)
	m.mu.Lock()
	defer m.mu.Unlock()
	return claimed && sid <= m.through
}

// doneThrough records that every claimed ticket with a source id up to sid is
// written whole. The mark only moves forward: a run again over tickets done before
// leaves it where it is.
func (m *mapping) doneThrough(ctx context.Context, sid int64) error {
	m.mu.Lock()
	passed := sid <= m.through
	m.mu.Unlock()
	if passed {
		return nil
	}
	if _, err := m.d.SQL.ExecContext(ctx, `INSERT INTO import_progress (company_id, source, tickets_done_through)
		VALUES ($1, $2, $3) ON CONFLICT (company_id, source) DO UPDATE SET tickets_done_through = excluded.tickets_done_through`,
		m.company, m.source, sid); err != nil {
		return fmt.Errorf("record import_progress: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.through = sid
	return nil
}

func (m *mapping) set(kind, sid string, tid engine.ID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.rows[kind]
	if k == nil {
		k = map[string]engine.ID{}
		m.rows[kind] = k
	}
	k[sid] = tid
}

func (m *mapping) get(kind string, sid int64) (engine.ID, bool) {
	return m.getS(kind, strconv.FormatInt(sid, 10))
}

func (m *mapping) getS(kind, sid string) (engine.ID, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.rows[kind][sid]
	return id, ok
}

// put records one row.
func (m *mapping) put(ctx context.Context, kind string, sid int64, tid engine.ID) error {
	return m.putMany(ctx, kind, []string{strconv.FormatInt(sid, 10)}, []engine.ID{tid})
}

// putMany records rows in one statement. A row already there is left as it is.
func (m *mapping) putMany(ctx context.Context, kind string, sids []string, tids []engine.ID) error {
	if len(sids) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO import_map (company_id, source, kind, source_id, target_id) VALUES `)
	args := []any{m.company, m.source, kind}
	for i := range sids {
		if i > 0 {
			b.WriteString(", ")
		}
		n := len(args)
		fmt.Fprintf(&b, "($1, $2, $3, $%d, $%d)", n+1, n+2)
		args = append(args, sids[i], tids[i])
	}
	b.WriteString(` ON CONFLICT (company_id, source, kind, source_id) DO NOTHING`)
	if _, err := m.d.SQL.ExecContext(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("record import_map %s: %w", kind, err)
	}
	for i := range sids {
		m.set(kind, sids[i], tids[i])
	}
	return nil
}

// describe is an error as a skip reason: its code and fields for a client-facing
// error, else its text.
func describe(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		if len(e.Fields) == 0 {
			return string(e.Code)
		}
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + e.Fields[k]
		}
		return string(e.Code) + " (" + strings.Join(parts, ", ") + ")"
	}
	return err.Error()
}

// clip cuts s to at most n runes.
func clip(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	r := []rune(s)
	if len(r) <= n {
		return s, false
	}
	return string(r[:n]), true
}
