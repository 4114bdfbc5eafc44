package importwhaticket

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"atende/engine"
	"atende/goroutine"
)

// ticketJob is one whaticket ticket with its messages, on its way into the journal.
type ticketJob struct {
	t    wtTicket
	msgs []wtMessage
	tags []int64
	// Set before the job is written: the Atende ticket, whether an earlier run
	// claimed it (its stream may hold part of it), its connection and contact, and
	// whether it is its conversation's latest ticket (the one the guard names).
	id      engine.ID
	resumed bool
	conn    engine.ID
	contact engine.ID
	latest  bool
}

// pairKey is a conversation: a whaticket connection and contact.
type pairKey struct{ whatsapp, contact int64 }

func (im *importer) importTickets(ctx context.Context) error {
	totalTickets, err := im.src.count(ctx, qCountTickets)
	if err != nil {
		return err
	}
	totalMessages, err := im.src.count(ctx, qCountMessages)
	if err != nil {
		return err
	}
	prog := newProgress(im.cfg.Progress, im.cfg.Terminal, totalTickets, totalMessages)
	defer prog.finish()

	latest := map[pairKey]int64{}
	if err := im.src.each(ctx, qLastTickets, func(r *sql.Rows) error {
		var k pairKey
		var id int64
		if err := r.Scan(&k.whatsapp, &k.contact, &id); err != nil {
			return err
		}
		latest[k] = id
		return nil
	}); err != nil {
		return err
	}
	var tags map[int64][]int64
	if im.src.has(ctx, "TicketTags") {
		if tags, err = im.links(ctx, qTicketTags); err != nil {
			return err
		}
	}
	// The holder of closed tickets whose user is gone: the first imported admin.
	var holder engine.ID
	if us, err := im.users.All(ctx, im.company); err == nil {
		for _, u := range us {
			if u.Profile == engine.ProfileAdmin && (holder == 0 || u.ID < holder) {
				holder = u.ID
			}
		}
	}
	w := &ticketWriter{im: im, holder: holder}

	tickets, err := im.src.db.QueryContext(ctx, im.src.f.sql(qTickets))
	if err != nil {
		return err
	}
	defer tickets.Close()
	msgs, err := im.src.db.QueryContext(ctx, im.src.f.sql(qMessages))
	if err != nil {
		return err
	}
	defer msgs.Close()
	var next *wtMessage // the first message not yet given to a ticket
	pull := func() error {
		next = nil
		if !msgs.Next() {
			return msgs.Err()
		}
		m, err := scanMessage(msgs)
		if err != nil {
			return err
		}
		next = &m
		return nil
	}
	if err := pull(); err != nil {
		return err
	}
	var batch []*ticketJob
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		nm := 0
		for _, j := range batch {
			nm += len(j.msgs)
		}
		if err := im.writeBatch(ctx, w, batch); err != nil {
			return err
		}
		prog.add(int64(len(batch)), int64(nm))
		batch = batch[:0]
		if im.cfg.AfterBatch != nil {
			return im.cfg.AfterBatch(im.t.snapshot())
		}
		return nil
	}
	for tickets.Next() {
		t, err := scanTicket(tickets)
		if err != nil {
			return err
		}
		j := &ticketJob{t: t, tags: tags[t.ID]}
		// Messages of tickets that are not there (whaticket's foreign key forbids
		// them) are skipped on the way.
		for next != nil && next.TicketID <= t.ID {
			if next.TicketID == t.ID {
				j.msgs = append(j.msgs, *next)
			} else {
				im.t.skip("message: its ticket is missing", 1)
			}
			if err := pull(); err != nil {
				return err
			}
		}
		j.latest = latest[pairKey{t.WhatsappID, t.ContactID}] == t.ID
		batch = append(batch, j)
		if len(batch) >= im.cfg.Batch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := tickets.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	for ; next != nil; _ = pull() {
		im.t.skip("message: its ticket is missing", 1)
	}
	return msgs.Err()
}

// writeBatch claims the batch's new tickets in import_map, writes every stream
// concurrently, then, if every one was written, marks the tickets done through the
// batch's last.
func (im *importer) writeBatch(ctx context.Context, w *ticketWriter, batch []*ticketJob) error {
	var todo []*ticketJob
	var claimIDs []string
	var claimTargets []engine.ID
	for _, j := range batch {
		if im.m.isDone(j.t.ID) {
			im.t.existing("ticket", 1)
			im.t.existing("message", len(j.msgs))
			continue
		}
		if reason := im.prepare(ctx, j); reason != "" {
			im.t.skip("ticket: "+reason, 1)
			im.t.skip("message: its ticket was skipped", len(j.msgs))
			continue
		}
		if id, ok := im.m.get("ticket", j.t.ID); ok {
			j.id, j.resumed = id, true
		} else {
			id, err := im.ids.Next(ctx, "ticket")
			if err != nil {
				return err
			}
			j.id = id
			claimIDs = append(claimIDs, strconv.FormatInt(j.t.ID, 10))
			claimTargets = append(claimTargets, id)
		}
		todo = append(todo, j)
	}
	if err := im.m.putMany(ctx, "ticket", claimIDs, claimTargets); err != nil {
		return err
	}

	var g goroutine.Group
	var mu sync.Mutex // guards firstErr
	var firstErr error
	work := make(chan *ticketJob)
	for range min(im.cfg.Workers, len(todo)) {
		g.Go(func() {
			for j := range work {
				err := w.write(ctx, j)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	for _, j := range todo {
		work <- j
	}
	close(work)
	g.Close()
	if firstErr != nil {
		// Nothing of the batch is marked: a resumed run folds its claimed tickets
		// again, at most a batch of them.
		return firstErr
	}
	// The batch is in source id order, as the source gives its tickets.
	return im.m.doneThrough(ctx, batch[len(batch)-1].t.ID)
}

// prepare resolves a ticket's connection and contact; a non-empty answer is why the
// ticket cannot be imported.
func (im *importer) prepare(ctx context.Context, j *ticketJob) string {
	switch j.t.Status {
	case engine.StatusOpen, engine.StatusPending, engine.StatusClosed:
	default:
		return "unknown status"
	}
	contact, ok := im.m.get("contact", j.t.ContactID)
	if !ok {
		return "its contact was not imported"
	}
	j.contact = contact
	conn, ok := im.m.get("whatsapp", j.t.WhatsappID)
	if !ok {
		var err error
		if conn, err = im.fallbackConnection(ctx); err != nil {
			return "no connection: " + describe(err)
		}
	}
	j.conn = conn
	return ""
}

// ticketWriter decides tickets' commands and appends their events.
type ticketWriter struct {
	im *importer
	// holder accepts and closes closed tickets whose whaticket user is gone (0:
	// such tickets are skipped).
	holder engine.ID
}

// write decides the job's commands on its stream's state (empty for a new ticket)
// and appends what results.
func (w *ticketWriter) write(ctx context.Context, j *ticketJob) error {
	im := w.im
	state := engine.TicketState{}
	if j.resumed {
		evs, err := im.cfg.Journal.ReadStream(ctx, ticketStream(j.id), 1, 0)
		if err != nil {
			return err
		}
		for _, rec := range evs {
			ev, err := engine.DecodeTicketEvent(rec.Type, rec.Data)
			if err != nil {
				return fmt.Errorf("ticket %d: %w", j.id, err)
			}
			state = engine.EvolveTicket(state, ev)
		}
	}
	d := &decider{ctx: ctx, im: im, id: j.id, state: state, version: state.Version, stream: ticketStream(j.id)}
	if err := w.decide(d, j); err != nil {
		return err
	}
	if err := d.append(); err != nil {
		return err
	}
	if j.latest {
		if err := w.claimGuard(ctx, j); err != nil {
			return err
		}
	}
	if d.written > 0 || !j.resumed {
		im.t.created("ticket", 1)
	} else {
		im.t.existing("ticket", 1)
	}
	return nil
}

// claimGuard points the conversation's guard at the ticket, so the contact's next
// message lands in it (or, closed, opens the next one), unless a ticket Atende
// opened itself is already there.
func (w *ticketWriter) claimGuard(ctx context.Context, j *ticketJob) error {
	im := w.im
	cur, err := im.guard.Current(ctx, j.conn, j.contact)
	if err != nil || cur == j.id {
		return err
	}
	if cur != 0 && !im.m.hasTarget("ticket", cur) {
		return nil
	}
	_, _, err = im.guard.Swap(ctx, im.company, j.conn, j.contact, cur, j.id)
	return err
}

func ticketStream(id engine.ID) string { return "ticket/" + strconv.FormatInt(id, 10) }

// decide turns a whaticket ticket into commands: open it (pending, or open with its
// user), receive and send its messages at their times, revoke the deleted ones,
// set its tags, mark it read when whaticket had nothing unread, and resolve it when
// it was closed.
func (w *ticketWriter) decide(d *decider, j *ticketJob) error {
	im := w.im
	t := j.t
	user, _ := im.m.get("user", t.UserID)
	opened := t.CreatedAt
	if len(j.msgs) > 0 && j.msgs[0].CreatedAt.Before(opened) {
		opened = j.msgs[0].CreatedAt
	}
	if !d.state.Exists() {
		status := engine.StatusPending
		var holder engine.ID
		if t.Status == engine.StatusOpen && user != 0 {
			status, holder = engine.StatusOpen, user
		}
		queue, _ := im.m.get("queue", t.QueueID)
		if err := d.do(engine.OpenTicket{TicketID: d.ticketID(), UUID: uuid.NewString(), CompanyID: im.company,
			ContactID: j.contact, ConnectionID: j.conn, Channel: engine.ChannelWhatsApp, QueueID: queue,
			UserID: holder, Status: status, IsGroup: t.IsGroup,
			Protocol: opened.UTC().Format("20060102") + "-" + strconv.FormatInt(d.ticketID(), 10)}, opened); err != nil {
			return fmt.Errorf("open ticket %d: %s", t.ID, describe(err))
		}
	}
	for _, m := range j.msgs {
		if err := w.message(d, m); err != nil {
			return err
		}
	}
	if len(j.tags) > 0 {
		ids := im.mapped("tag", j.tags)
		if len(ids) > 0 {
			if err := d.do(engine.SetTags{TagIDs: ids}, t.UpdatedAt); err != nil {
				im.t.adjust("ticket tags dropped: "+describe(err), 1)
			}
		}
	}
	end := t.UpdatedAt
	if end.Before(d.at) {
		end = d.at
	}
	if t.Unread == 0 && d.state.UnreadMessages > 0 && d.state.Status != engine.StatusClosed {
		if err := d.do(engine.MarkRead{}, end); err != nil {
			return err
		}
	}
	if t.Status == engine.StatusClosed && d.state.Status != engine.StatusClosed {
		if d.state.Status == engine.StatusPending {
			holder := user
			if holder == 0 {
				holder = w.holder
			}
			if holder == 0 {
				im.t.adjust("closed ticket left pending: no user to close it", 1)
				return nil
			}
			if err := d.do(engine.Accept{UserID: holder}, end); err != nil {
				return err
			}
		}
		if err := d.do(engine.Resolve{}, end); err != nil {
			return err
		}
	}
	return nil
}

// message records one whaticket message: the customer's as received, ours as an
// automatic message (whaticket does not record which attendant wrote it) with its
// receipt. Both carry whaticket's id as their provider id, which keeps ours out of
// the outbox (it sends only messages no channel has seen) and lets receipts,
// quotes and deletions of a reconnected number find them.
func (w *ticketWriter) message(d *decider, m wtMessage) error {
	im := w.im
	if !engine.ValidProviderID(m.ID) || m.ID == "" {
		im.t.skip("message: id is not a valid WhatsApp id", 1)
		return nil
	}
	if id, ok := d.state.ProviderIDs[m.ID]; ok {
		// Written by an earlier run; its receipt and deletion may still be missing.
		im.t.existing("message", 1)
		return w.after(d, m, id)
	}
	body := engine.SanitizeText(m.Body)
	if b, cut := clip(body, engine.MaxMessageBody); cut {
		body = b
		im.t.adjust("message body clipped to 65536 characters", 1)
	}
	media, url := w.media(m, d)
	if strings.TrimSpace(body) == "" && url == "" {
		im.t.skip("message: empty", 1)
		return nil
	}
	var quoted engine.ID
	if m.QuotedID != "" {
		quoted = d.state.ProviderIDs[m.QuotedID] // a quote of another ticket is dropped
	}
	id, err := im.ids.Next(d.ctx, "message")
	if err != nil {
		return err
	}
	var cmd engine.TicketCommand
	if m.FromMe {
		if media == engine.MediaCallLog {
			media = ""
		}
		// The receipt goes with the message: one event, not two.
		cmd = engine.SendAutomaticMessage{MessageID: id, ProviderID: m.ID, Body: body, MediaType: media, MediaURL: url,
			QuotedID: quoted, Ack: ackOf(m.Ack)}
	} else {
		cmd = engine.ReceiveMessage{MessageID: id, ProviderID: m.ID, Body: body, MediaType: media, MediaURL: url, QuotedID: quoted}
	}
	if err := d.do(cmd, m.CreatedAt); err != nil {
		if engine.CodeOf(err) == "" {
			return err
		}
		im.t.skip("message: "+describe(err), 1)
		return nil
	}
	im.t.created("message", 1)
	return w.after(d, m, id)
}

// ackOf maps whaticket's acks — 0 pending, 1 sent, 2 delivered, 3 read, 4 played —
// onto Atende's, which has no 2 (delivered counts as sent). An ack of 0 stays 0:
// the message has a provider id, which keeps it out of the outbox.
func ackOf(whaticket int) int {
	switch whaticket {
	case 1, 2:
		return engine.AckSent
	case 3:
		return engine.AckRead
	case 4, 5:
		return engine.AckPlayed
	}
	return engine.AckPending
}

// after records a message's receipt (ours; one written by an earlier run of an
// older version may lack it) and deletion.
func (w *ticketWriter) after(d *decider, m wtMessage, id engine.ID) error {
	if m.FromMe {
		ack := ackOf(m.Ack)
		if meta, ok := d.state.Messages[id]; ok && ack > 0 && meta.Ack < ack {
			if err := d.do(engine.AckMessage{MessageID: id, Ack: ack}, m.CreatedAt); err != nil {
				return err
			}
		}
	}
	if m.IsDeleted {
		if meta, ok := d.state.Messages[id]; ok && !meta.Deleted {
			if err := d.do(engine.RevokeMessage{ProviderID: m.ID, FromMe: m.FromMe}, m.CreatedAt); err != nil {
				return err
			}
		}
	}
	return nil
}

// media maps whaticket's media type (the MIME type's first part for files, the
// WhatsApp message type otherwise) and stored file name onto Atende's.
func (w *ticketWriter) media(m wtMessage, d *decider) (mediaType, url string) {
	raw := strings.TrimSpace(m.MediaURL)
	if raw != "" && !strings.Contains(raw, "://") {
		if base := w.im.cfg.MediaBaseURL; base != "" {
			raw = strings.TrimRight(base, "/") + "/" + path.Base(raw)
		}
	}
	if !validURL(raw) {
		w.im.t.adjust("message media link dropped: not one line of at most 4096 characters", 1)
		raw = ""
	}
	switch m.MediaType {
	case "image", "video", "audio":
		mediaType = m.MediaType
	case "ptt":
		mediaType = engine.MediaAudio
	case "call_log":
		return engine.MediaCallLog, ""
	default:
		if raw != "" {
			mediaType = engine.MediaDocument
		}
	}
	if raw == "" {
		mediaType = "" // a file without its file is text
	}
	return mediaType, raw
}

func validURL(s string) bool {
	return len(s) <= 4096 && !strings.ContainsAny(s, "\r\n") && engine.StorableText(s)
}

// decider folds a ticket's decisions and keeps the encoded events to append.
type decider struct {
	ctx     context.Context
	im      *importer
	id      engine.ID
	stream  string
	state   engine.TicketState
	version int64 // the stream's version the pending events follow
	at      time.Time
	pending []engine.EventData
	written int
}

func (d *decider) ticketID() engine.ID { return d.id }

// do decides cmd at time at and folds the events; a long ticket's events are
// appended every maxAppend.
func (d *decider) do(cmd engine.TicketCommand, at time.Time) error {
	d.at = at
	events, err := engine.DecideTicket(d.state, cmd, at)
	if err != nil {
		return err
	}
	for _, ev := range events {
		typ, body, err := engine.EncodeTicketEvent(ev)
		if err != nil {
			return err
		}
		d.pending = append(d.pending, engine.EventData{Type: typ, Data: body})
		d.state = engine.EvolveTicket(d.state, ev)
	}
	if len(d.pending) >= maxAppend {
		return d.append()
	}
	return nil
}

// append writes the pending events after the version they were decided on.
func (d *decider) append() error {
	if len(d.pending) == 0 {
		return nil
	}
	res, err := d.im.cfg.Journal.Append(d.ctx, d.im.company, d.stream, d.version, d.pending...)
	if err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return fmt.Errorf("%s was written meanwhile (another import running?): %w", d.stream, err)
		}
		return err
	}
	d.im.t.events(len(d.pending))
	d.written += len(d.pending)
	d.version = res.Version
	d.pending = d.pending[:0]
	return nil
}

// hasTarget reports whether id is what some row of kind was imported as.
func (m *mapping) hasTarget(kind string, id engine.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.rows[kind] {
		if t == id {
			return true
		}
	}
	return false
}
