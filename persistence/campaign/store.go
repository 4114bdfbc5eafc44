package campaign

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/jobs"
)

// Config are the collaborators of a Store.
type Config struct {
	// Contacts finds the contacts of CSV lines and creates those the tenant does not
	// know yet. Required.
	Contacts engine.ContactStore
	// Connections lists the tenant's connections (senders) and reads dailyMax.
	// Required.
	Connections engine.ConnectionStore
	// Sender hands each send to its connection. Required to run.
	Sender engine.CampaignSender
	// Settings holds each tenant's time zone (the day of dailyMax, message
	// variables); nil is engine.TenantTimeZone for all.
	Settings engine.SettingStore
	// Clock is the time; nil is the system clock. Tests step it across days.
	Clock engine.Clock
	// Interval is the default pause between two sends of one connection; Jitter
	// adds up to that much at random. Zero Interval is the default (4 s, jitter
	// 3 s); a negative one sends without pacing (benchmarks).
	Interval time.Duration
	Jitter   time.Duration
	// Batch is how many sends of one connection are claimed and sent together when
	// there is no pacing (100 when zero).
	Batch int
	// OnChange is told of every campaign whose progress or status changed, for the
	// realtime layer; nil tells nobody.
	OnChange func(engine.Campaign)
	// Jobs inserts the lanes' jobs in the campaigns' transactions: the node's River
	// client, or an insert-only one (package jobs); nil makes an insert-only client of
	// its own. The node's client works them (Kinds).
	Jobs *jobs.Client
	// Workers is how many (campaign, connection) jobs one node works at once; 0
	// means defaultWorkers.
	Workers int
	Log     zerolog.Logger
}

// Store keeps campaigns and broadcasts and runs them. Safe for concurrent use.
type Store struct {
	// static after New
	db   *db.DB
	cfg  Config
	jobs *jobs.Client
}

// New returns the store of d. Its campaigns run on the node's River client that
// works Kinds.
func New(d *db.DB, cfg Config) (*Store, error) {
	if cfg.Contacts == nil || cfg.Connections == nil {
		return nil, errors.New("campaign: Config.Contacts and Config.Connections are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = engine.SystemClock{}
	}
	if cfg.Interval == 0 {
		cfg.Interval, cfg.Jitter = 4*time.Second, 3*time.Second
	}
	if cfg.Interval < 0 {
		cfg.Interval, cfg.Jitter = 0, 0
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 100
	}
	ins, err := jobs.InserterFor(d, cfg.Jobs)
	if err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	return &Store{db: d, cfg: cfg, jobs: ins}, nil
}

func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

func fromMicros(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMicro(v).UTC()
}

// target is one contact of a campaign's segment.
type target struct {
	contactID engine.ID
	name      string
	number    string
	params    []string
}

// Create validates in, expands its segment into one send per (contact, message)
// over the chosen connections and stores it with its jobs, all in one transaction:
// no campaign without its sends and jobs. A broadcast needs as many credits as it
// has sends (ERR_NO_CREDITS otherwise); they are taken one per send as it goes.
func (s *Store) Create(ctx context.Context, companyID, userID engine.ID, in engine.CampaignInput) (engine.Campaign, error) {
	now := s.cfg.Clock.Now()
	in, err := engine.ValidateCampaign(in, now)
	if err != nil {
		return engine.Campaign{}, err
	}
	conns, err := s.senders(ctx, companyID, in)
	if err != nil {
		return engine.Campaign{}, err
	}
	targets, err := s.segment(ctx, companyID, in)
	if err != nil {
		return engine.Campaign{}, err
	}
	if len(targets) == 0 {
		return engine.Campaign{}, engine.E(engine.ErrNoContactsSelected)
	}
	slices.SortFunc(in.Messages, func(a, b engine.CampaignMessage) int { return cmp.Compare(a.Seq, b.Seq) })
	total := len(targets) * len(in.Messages)
	if in.Kind == engine.KindBroadcast {
		credits, err := s.Credits(ctx, companyID)
		if err != nil {
			return engine.Campaign{}, err
		}
		if credits < int64(total) {
			return engine.Campaign{}, engine.E(engine.ErrNoCredits)
		}
	}
	spec := in
	// The contacts and CSV lines are in the sends: the spec stays small, since every
	// step of the job reads it.
	spec.CSV, spec.ContactIDs = nil, nil
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return engine.Campaign{}, fmt.Errorf("campaign spec: %w", err)
	}
	status := engine.CampaignScheduled
	if !in.StartAt.After(now) {
		status = engine.CampaignRunning
	}
	var id engine.ID
	err = inTx(ctx, s.db, func(tx txn) error {
		if err := tx.queryRow(ctx, `INSERT INTO campaigns (company_id, kind, name, plan_name, spec, status, start_at, user_id,
			total, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id`,
			companyID, in.Kind, in.Name, in.PlanName, string(specJSON), status, micros(in.StartAt), userID, total, micros(now)).Scan(&id); err != nil {
			return fmt.Errorf("insert campaign: %w", err)
		}
		// A range of message ids, reserved from the same counter the tickets use
		// (id_blocks), so campaign sends never share an id with a chat message.
		var end int64
		if err := tx.queryRow(ctx, `INSERT INTO id_blocks (name, next) VALUES ('message', 1 + $1)
			ON CONFLICT (name) DO UPDATE SET next = id_blocks.next + $1 RETURNING next`, int64(total)).Scan(&end); err != nil {
			return fmt.Errorf("reserve message ids: %w", err)
		}
		first := end - int64(total)
		if err := s.insertSends(ctx, tx, companyID, id, targets, in.Messages, conns, first); err != nil {
			return err
		}
		for _, c := range conns {
			if _, err := tx.exec(ctx, `INSERT INTO campaign_lanes (campaign_id, connection_id, next_send_at) VALUES ($1, $2, $3)`,
				id, c, micros(in.StartAt)); err != nil {
				return fmt.Errorf("insert campaign lane: %w", err)
			}
			if err := s.insertTx(ctx, tx, runArgs{CompanyID: companyID, CampaignID: id, ConnectionID: c}, in.StartAt); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return engine.Campaign{}, err
	}
	c, err := s.Get(ctx, companyID, id)
	if err == nil {
		s.changed(c)
	}
	return c, err
}

// senders are the connections of the tenant that send in: SendFrom when set (each
// must be the tenant's), else those whose channel matches ChannelFilter; the default
// connection only with IncludeDefault unless it is the only one.
func (s *Store) senders(ctx context.Context, companyID engine.ID, in engine.CampaignInput) ([]engine.ID, error) {
	all, err := s.cfg.Connections.List(ctx, companyID)
	if err != nil {
		return nil, err
	}
	byID := map[engine.ID]engine.Connection{}
	for _, c := range all {
		byID[c.ID] = c
	}
	var out []engine.ID
	if len(in.SendFrom) > 0 {
		for _, id := range in.SendFrom {
			c, ok := byID[id]
			if !ok {
				return nil, engine.E(engine.ErrNoWappFound)
			}
			if !slices.Contains(out, c.ID) && like(c.Channel, in.ChannelFilter) {
				out = append(out, c.ID)
			}
		}
	} else {
		var def engine.ID
		for _, c := range all {
			if !like(c.Channel, in.ChannelFilter) {
				continue
			}
			if c.IsDefault && !in.IncludeDefault {
				def = c.ID
				continue
			}
			out = append(out, c.ID)
		}
		if len(out) == 0 && def != 0 {
			out = append(out, def)
		}
	}
	if len(out) == 0 {
		return nil, engine.E(engine.ErrNoChannelSelected)
	}
	return out, nil
}

// like matches v against a SQL LIKE pattern (% any run, _ one character), ignoring
// case, as the campaign form's filters are written.
func like(v, pattern string) bool {
	v, pattern = strings.ToLower(v), strings.ToLower(pattern)
	vr, pr := []rune(v), []rune(pattern)
	// Iterative wildcard matching with backtracking to the last %.
	vi, pi, star, mark := 0, 0, -1, 0
	for vi < len(vr) {
		switch {
		case pi < len(pr) && (pr[pi] == '_' || pr[pi] == vr[vi]):
			vi++
			pi++
		case pi < len(pr) && pr[pi] == '%':
			star, mark = pi, vi
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			vi = mark
		default:
			return false
		}
	}
	for pi < len(pr) && pr[pi] == '%' {
		pi++
	}
	return pi == len(pr)
}

// segment lists the contacts of in's segment, each once, in contact id order, with
// the parameters of its CSV line.
func (s *Store) segment(ctx context.Context, companyID engine.ID, in engine.CampaignInput) ([]target, error) {
	found := map[engine.ID]*target{}
	add := func(id engine.ID, name, number string) {
		if number == "" || found[id] != nil {
			return
		}
		found[id] = &target{contactID: id, name: name, number: number}
	}
	scan := func(q string, args ...any) error {
		r, err := s.db.SQL.QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("campaign segment: %w", err)
		}
		defer r.Close()
		for r.Next() {
			var (
				id           engine.ID
				name, number string
			)
			if err := r.Scan(&id, &name, &number); err != nil {
				return err
			}
			add(id, name, number)
		}
		return r.Err()
	}
	for chunk := range slices.Chunk(in.ContactIDs, 500) {
		q, args := inList(`SELECT id, name, number FROM contacts WHERE company_id = $1 AND id IN (%s)`, companyID, chunk)
		if err := scan(q, args...); err != nil {
			return nil, err
		}
	}
	if len(in.TagIDs) > 0 {
		q, args := inList(`SELECT DISTINCT c.id, c.name, c.number FROM contacts c
			JOIN tickets t ON t.contact_id = c.id AND t.company_id = c.company_id
			JOIN ticket_tags tt ON tt.ticket_id = t.id AND tt.company_id = t.company_id
			WHERE c.company_id = $1 AND tt.tag_id IN (%s)`, companyID, in.TagIDs)
		if err := scan(q, args...); err != nil {
			return nil, err
		}
	}
	if in.Groups {
		if err := scan(`SELECT id, name, number FROM contacts WHERE company_id = $1 AND is_group`, companyID); err != nil {
			return nil, err
		}
	}
	if in.Leads {
		if err := scan(`SELECT c.id, c.name, c.number FROM contacts c WHERE c.company_id = $1 AND NOT c.is_group
			AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.company_id = c.company_id AND t.contact_id = c.id)`, companyID); err != nil {
			return nil, err
		}
	}
	if len(in.Polygon) > 0 {
		if err := s.inside(ctx, companyID, in.Polygon, add); err != nil {
			return nil, err
		}
	}
	params := map[engine.ID][]string{}
	for _, line := range in.CSV {
		c, _, err := s.cfg.Contacts.FindOrCreateByNumber(ctx, companyID, line.Number, line.Name)
		if err != nil {
			return nil, err
		}
		add(c.ID, c.Name, c.Number)
		params[c.ID] = line.Params
	}
	out := make([]target, 0, len(found))
	for _, t := range found {
		if !like(t.name, in.NameFilter) {
			continue
		}
		t.params = params[t.contactID]
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b target) int { return cmp.Compare(a.contactID, b.contactID) })
	return out, nil
}

// inside adds the contacts whose location (extra info "location") is inside polygon.
func (s *Store) inside(ctx context.Context, companyID engine.ID, polygon []engine.Location, add func(engine.ID, string, string)) error {
	r, err := s.db.SQL.QueryContext(ctx, `SELECT c.id, c.name, c.number, e.value FROM contact_extra_info e
		JOIN contacts c ON c.id = e.contact_id AND c.company_id = e.company_id
		WHERE e.company_id = $1 AND lower(e.name) = 'location'`, companyID)
	if err != nil {
		return fmt.Errorf("campaign polygon: %w", err)
	}
	defer r.Close()
	for r.Next() {
		var (
			id                  engine.ID
			name, number, value string
		)
		if err := r.Scan(&id, &name, &number, &value); err != nil {
			return err
		}
		if loc, ok := engine.ParseLocation(value); ok && engine.InPolygon(loc, polygon) {
			add(id, name, number)
		}
	}
	return r.Err()
}

// inList fills %s of q with $2… placeholders for ids, $1 being companyID.
func inList(q string, companyID engine.ID, ids []engine.ID) (string, []any) {
	args := []any{companyID}
	ph := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		ph[i] = fmt.Sprintf("$%d", i+2)
	}
	return fmt.Sprintf(q, strings.Join(ph, ", ")), args
}

// insertSends writes one send per (target, message): targets are dealt to the
// connections in turn, and every message of a contact goes through the same one.
func (s *Store) insertSends(ctx context.Context, tx txn, companyID, campaignID engine.ID, targets []target,
	messages []engine.CampaignMessage, conns []engine.ID, firstMsgID int64) error {
	const perStatement = 400
	cols := 9
	var (
		sb   strings.Builder
		args []any
		n    int
	)
	flush := func() error {
		if n == 0 {
			return nil
		}
		if _, err := tx.exec(ctx, sb.String(), args...); err != nil {
			return fmt.Errorf("insert campaign sends: %w", err)
		}
		sb.Reset()
		args, n = args[:0], 0
		return nil
	}
	msgID := firstMsgID
	for i, t := range targets {
		var params string
		if len(t.params) > 0 {
			b, _ := json.Marshal(t.params)
			params = string(b)
		}
		conn := conns[i%len(conns)]
		for _, m := range messages {
			if n == 0 {
				sb.WriteString(`INSERT INTO campaign_sends (company_id, campaign_id, contact_id, seq, connection_id, number,
					contact_name, params, message_id) VALUES `)
			} else {
				sb.WriteString(", ")
			}
			base := n * cols
			fmt.Fprintf(&sb, "($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)", base+1, base+2, base+3, base+4, base+5, base+6, base+7, base+8, base+9)
			args = append(args, companyID, campaignID, t.contactID, m.Seq, conn, t.number, t.name, params, msgID)
			msgID++
			n++
			if n == perStatement {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// campaignCols reads a campaign with its lanes' earliest next send and its reason.
const campaignCols = `id, company_id, kind, name, plan_name, spec, status, start_at, user_id, total, sent_count,
	error_count,
	COALESCE((SELECT MIN(l.next_send_at) FROM campaign_lanes l WHERE l.campaign_id = campaigns.id AND NOT l.done), 0),
	COALESCE((SELECT l.wait_reason FROM campaign_lanes l WHERE l.campaign_id = campaigns.id AND NOT l.done
		ORDER BY l.next_send_at, l.connection_id LIMIT 1), ''),
	created_at, updated_at`

func scanCampaign(r row) (engine.Campaign, error) {
	var (
		c                                    engine.Campaign
		spec                                 string
		start, next, created, updated, total int64
		sent, errs                           int64
	)
	if err := r.Scan(&c.ID, &c.CompanyID, &c.Kind, &c.Name, &c.PlanName, &spec, &c.Status, &start, &c.UserID, &total,
		&sent, &errs, &next, &c.WaitReason, &created, &updated); err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(spec), &c.Spec); err != nil {
		return c, fmt.Errorf("campaign %d spec: %w", c.ID, err)
	}
	c.Total, c.Sent, c.Errors = int(total), int(sent), int(errs)
	c.Pending = c.Total - c.Sent - c.Errors
	c.StartAt, c.NextSendAt, c.CreatedAt, c.UpdatedAt = fromMicros(start), fromMicros(next), fromMicros(created), fromMicros(updated)
	if c.Status != engine.CampaignRunning && c.Status != engine.CampaignScheduled {
		c.NextSendAt = time.Time{}
	}
	return c, nil
}

// Get returns campaign id of companyID, or ERR_NO_CAMPAIGN_FOUND.
func (s *Store) Get(ctx context.Context, companyID, id engine.ID) (engine.Campaign, error) {
	c, err := scanCampaign(s.db.SQL.QueryRowContext(ctx, `SELECT `+campaignCols+` FROM campaigns WHERE id = $1 AND company_id = $2`, id, companyID))
	if isNoRows(err) {
		return c, engine.E(engine.ErrNoCampaignFound)
	}
	return c, err
}

// List returns the tenant's campaigns of kind, newest first.
func (s *Store) List(ctx context.Context, companyID engine.ID, kind string) ([]engine.Campaign, error) {
	r, err := s.db.SQL.QueryContext(ctx, `SELECT `+campaignCols+` FROM campaigns WHERE company_id = $1 AND kind = $2 ORDER BY id DESC LIMIT 500`, companyID, kind)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := []engine.Campaign{}
	for r.Next() {
		c, err := scanCampaign(r)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, r.Err()
}

// Sends lists the sends of a campaign in id order after the send id after, at most
// limit (1 to 10,000); status "" lists all.
func (s *Store) Sends(ctx context.Context, companyID, campaignID engine.ID, status string, after engine.ID, limit int) ([]engine.CampaignSend, error) {
	limit = min(max(limit, 1), 10_000)
	q := `SELECT id, campaign_id, contact_id, contact_name, number, seq, connection_id, status, error, sent_at
		FROM campaign_sends WHERE campaign_id = $1 AND company_id = $2 AND id > $3`
	args := []any{campaignID, companyID, after}
	if status != "" {
		q += ` AND status = $5`
		args = append(args, limit, status)
	} else {
		args = append(args, limit)
	}
	q += ` ORDER BY id LIMIT $4`
	r, err := s.db.SQL.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := []engine.CampaignSend{}
	for r.Next() {
		var (
			x      engine.CampaignSend
			sentAt int64
		)
		if err := r.Scan(&x.ID, &x.CampaignID, &x.ContactID, &x.ContactName, &x.Number, &x.Seq, &x.ConnectionID, &x.Status, &x.Error, &sentAt); err != nil {
			return nil, err
		}
		if x.Status == "sending" {
			x.Status = engine.SendPending
		}
		x.SentAt = fromMicros(sentAt)
		out = append(out, x)
	}
	return out, r.Err()
}

// Credits returns the tenant's broadcast credits.
func (s *Store) Credits(ctx context.Context, companyID engine.ID) (int64, error) {
	var n int64
	err := s.db.SQL.QueryRowContext(ctx, `SELECT credits FROM campaign_credits WHERE company_id = $1`, companyID).Scan(&n)
	if isNoRows(err) {
		return 0, nil
	}
	return n, err
}

// SetCredits sets the tenant's broadcast credits (an admin's act).
func (s *Store) SetCredits(ctx context.Context, companyID engine.ID, credits int64) error {
	if credits < 0 || credits > 1_000_000_000 {
		return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"credits": engine.MsgInvalidValue}}
	}
	_, err := s.db.SQL.ExecContext(ctx, `INSERT INTO campaign_credits (company_id, credits) VALUES ($1, $2)
		ON CONFLICT (company_id) DO UPDATE SET credits = excluded.credits`, companyID, credits)
	return err
}

// Pause stops a scheduled or running campaign's sends after those in flight; Resume
// starts them again; Cancel ends it for good (its pending sends stay pending).
func (s *Store) Pause(ctx context.Context, companyID, id engine.ID) (engine.Campaign, error) {
	return s.transition(ctx, companyID, id, engine.CampaignPaused, engine.CampaignScheduled, engine.CampaignRunning)
}

// Cancel ends a campaign that has not finished.
func (s *Store) Cancel(ctx context.Context, companyID, id engine.ID) (engine.Campaign, error) {
	return s.transition(ctx, companyID, id, engine.CampaignCancelled, engine.CampaignScheduled, engine.CampaignRunning, engine.CampaignPaused)
}

// Resume runs a paused campaign again: its jobs are inserted anew (one per
// connection that still has pending sends), in the status change's transaction.
func (s *Store) Resume(ctx context.Context, companyID, id engine.ID) (engine.Campaign, error) {
	return s.transition(ctx, companyID, id, engine.CampaignRunning, engine.CampaignPaused)
}

func (s *Store) transition(ctx context.Context, companyID, id engine.ID, to string, from ...string) (engine.Campaign, error) {
	now := s.cfg.Clock.Now()
	err := inTx(ctx, s.db, func(tx txn) error {
		c, err := scanCampaign(tx.queryRow(ctx, `SELECT `+campaignCols+` FROM campaigns WHERE id = $1 AND company_id = $2`, id, companyID))
		if isNoRows(err) {
			return engine.E(engine.ErrNoCampaignFound)
		}
		if err != nil {
			return err
		}
		if !slices.Contains(from, c.Status) {
			return engine.E(engine.ErrCampaignTransition)
		}
		status := to
		if to == engine.CampaignRunning && c.StartAt.After(now) {
			status = engine.CampaignScheduled
		}
		n, err := tx.exec(ctx, `UPDATE campaigns SET status = $1, updated_at = $2 WHERE id = $3 AND company_id = $4 AND status = $5`,
			status, micros(now), id, companyID, c.Status)
		if err != nil {
			return err
		}
		if n == 0 {
			return engine.E(engine.ErrConcurrentUpdate)
		}
		if to != engine.CampaignRunning {
			return nil
		}
		r, err := tx.query(ctx, `SELECT DISTINCT connection_id FROM campaign_sends WHERE campaign_id = $1 AND status IN ('pending', 'sending')`, id)
		if err != nil {
			return err
		}
		var conns []engine.ID
		for r.Next() {
			var c engine.ID
			if err := r.Scan(&c); err != nil {
				r.Close()
				return err
			}
			conns = append(conns, c)
		}
		r.Close()
		if err := r.Err(); err != nil {
			return err
		}
		for _, conn := range conns {
			at := later(c.StartAt, now)
			if _, err := tx.exec(ctx, `UPDATE campaign_lanes SET done = FALSE, wait_reason = '', next_send_at = $1
				WHERE campaign_id = $2 AND connection_id = $3`, micros(at), id, conn); err != nil {
				return err
			}
			if err := s.insertTx(ctx, tx, runArgs{CompanyID: companyID, CampaignID: id, ConnectionID: conn}, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return engine.Campaign{}, err
	}
	c, err := s.Get(ctx, companyID, id)
	if err == nil {
		s.changed(c)
	}
	return c, err
}

func (s *Store) changed(c engine.Campaign) {
	if s.cfg.OnChange != nil {
		s.cfg.OnChange(c)
	}
}

// zone is the tenant's time zone.
func (s *Store) zone(ctx context.Context, companyID engine.ID) *time.Location {
	loc, err := engine.TenantZone(ctx, s.cfg.Settings, companyID)
	if err != nil {
		return engine.LoadZone(engine.TenantTimeZone)
	}
	return loc
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
