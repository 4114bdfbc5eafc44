package importwhaticket

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/bcrypt"

	"atende/engine"
	"atende/goroutine"
)

// Reference data goes through the stores, validated as the REST API validates it.
// A row the stores refuse is skipped and counted under its reason; nothing of it is
// written.

func (im *importer) importQueues(ctx context.Context) error {
	var rows []wtQueue
	if err := im.src.each(ctx, qQueues, func(r *sql.Rows) error {
		var q wtQueue
		err := r.Scan(&q.ID, &q.Name, &q.Color, &q.Greeting)
		rows = append(rows, q)
		return err
	}); err != nil {
		return err
	}
	for _, q := range rows {
		if _, ok := im.m.get("queue", q.ID); ok {
			im.t.existing("queue", 1)
			continue
		}
		name, _ := clip(strings.TrimSpace(q.Name), engine.NameMax)
		created, err := im.queues.Create(ctx, im.company, engine.QueueInput{Name: name, Color: q.Color,
			GreetingMessage: engine.SanitizeText(q.Greeting)})
		if engine.CodeOf(err) == engine.ErrQueueColorAlreadyExists {
			// The tenant already has a queue of this colour: the same queue when
			// the names match too.
			if id, ok := im.queueByNameColor(ctx, name, q.Color); ok {
				created.ID, err = id, nil
			}
		}
		if err != nil {
			if engine.CodeOf(err) == "" {
				return err
			}
			im.t.skip("queue: "+describe(err), 1)
			continue
		}
		if err := im.m.put(ctx, "queue", q.ID, created.ID); err != nil {
			return err
		}
		im.t.created("queue", 1)
	}
	return nil
}

func (im *importer) queueByNameColor(ctx context.Context, name, color string) (engine.ID, bool) {
	qs, err := im.queues.List(ctx, im.company)
	if err != nil {
		return 0, false
	}
	for _, q := range qs {
		if strings.EqualFold(q.Name, name) && strings.EqualFold(q.Color, strings.TrimSpace(color)) {
			return q.ID, true
		}
	}
	return 0, false
}

// links reads a two-column link table (UserQueues, WhatsappQueues) as owner → ids.
func (im *importer) links(ctx context.Context, query string) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	err := im.src.each(ctx, query, func(r *sql.Rows) error {
		var a, b int64
		if err := r.Scan(&a, &b); err != nil {
			return err
		}
		out[a] = append(out[a], b)
		return nil
	})
	return out, err
}

// mapped translates source ids of kind into Atende ids, leaving out unmapped ones.
func (im *importer) mapped(kind string, ids []int64) []engine.ID {
	var out []engine.ID
	for _, id := range ids {
		if t, ok := im.m.get(kind, id); ok {
			out = append(out, t)
		}
	}
	return out
}

func (im *importer) importWhatsapps(ctx context.Context) error {
	var rows []wtWhatsapp
	if err := im.src.each(ctx, qWhatsapps, func(r *sql.Rows) error {
		var w wtWhatsapp
		err := r.Scan(&w.ID, &w.Name, &w.IsDefault, &w.Greeting, &w.Farewell)
		rows = append(rows, w)
		return err
	}); err != nil {
		return err
	}
	queues, err := im.links(ctx, qWhatsappQueues)
	if err != nil {
		return err
	}
	for _, w := range rows {
		if _, ok := im.m.get("whatsapp", w.ID); ok {
			im.t.existing("connection", 1)
			continue
		}
		name, _ := clip(strings.TrimSpace(w.Name), engine.NameMax)
		if len([]rune(name)) < engine.NameMin {
			name = "WhatsApp " + strconv.FormatInt(w.ID, 10)
		}
		c, err := im.connections.Create(ctx, im.company, engine.ConnectionInput{Name: name, Channel: engine.ChannelWhatsApp,
			IsDefault: w.IsDefault, GreetingMessage: engine.SanitizeText(w.Greeting),
			FarewellMessage: engine.SanitizeText(w.Farewell), QueueIDs: im.mapped("queue", queues[w.ID])})
		if err != nil {
			if engine.CodeOf(err) == "" {
				return err
			}
			im.t.skip("connection: "+describe(err), 1)
			continue
		}
		if err := im.m.put(ctx, "whatsapp", w.ID, c.ID); err != nil {
			return err
		}
		im.t.created("connection", 1)
	}
	return nil
}

// fallbackConnection is the connection of tickets whose whaticket connection is
// gone (whatsappId NULL): the tenant's imported default, else a connection made
// for them, recorded as whatsapp 0.
func (im *importer) fallbackConnection(ctx context.Context) (engine.ID, error) {
	if id, ok := im.m.get("whatsapp", 0); ok {
		return id, nil
	}
	c, err := im.connections.Create(ctx, im.company, engine.ConnectionInput{Name: "WhatsApp (whaticket)",
		Channel: engine.ChannelWhatsApp})
	if err != nil {
		return 0, err
	}
	if err := im.m.put(ctx, "whatsapp", 0, c.ID); err != nil {
		return 0, err
	}
	im.t.created("connection", 1)
	return c.ID, nil
}

func (im *importer) importUsers(ctx context.Context) error {
	var rows []wtUser
	if err := im.src.each(ctx, qUsers, func(r *sql.Rows) error {
		var u wtUser
		err := r.Scan(&u.ID, &u.Name, &u.Email, &u.Hash, &u.Profile, &u.WhatsappID)
		rows = append(rows, u)
		return err
	}); err != nil {
		return err
	}
	queues, err := im.links(ctx, qUserQueues)
	if err != nil {
		return err
	}
	for _, u := range rows {
		if _, ok := im.m.get("user", u.ID); ok {
			im.t.existing("user", 1)
			continue
		}
		profile := engine.ProfileUser
		if u.Profile == engine.ProfileAdmin {
			profile = engine.ProfileAdmin
		}
		name, _ := clip(strings.TrimSpace(u.Name), engine.NameMax)
		in, err := engine.ValidateUser(engine.UserInput{Name: name, Email: u.Email, Profile: profile}, false)
		if err != nil {
			im.t.skip("user: "+describe(err), 1)
			continue
		}
		// whaticket hashes with bcryptjs ($2a$/$2b$): kept as it is, the same password
		// logs in. Anything else could never log in.
		if _, err := bcrypt.Cost([]byte(u.Hash)); err != nil {
			im.t.skip("user: password hash is not bcrypt", 1)
			continue
		}
		var whatsapp engine.ID
		if u.WhatsappID != 0 {
			whatsapp, _ = im.m.get("whatsapp", u.WhatsappID)
		}
		created, err := im.users.Create(ctx, engine.NewUser{CompanyID: im.company, Name: in.Name, Email: in.Email,
			PasswordHash: u.Hash, Profile: profile, QueueIDs: im.mapped("queue", queues[u.ID]), ConnectionID: whatsapp})
		if engine.CodeOf(err) == engine.ErrEmailAlreadyExists {
			// The same login already exists: this tenant's user is the one (left as
			// it is); another tenant's keeps its login.
			if prev, perr := im.users.ByEmail(ctx, in.Email); perr == nil && prev.CompanyID == im.company {
				created, err = prev, nil
			}
		}
		if err != nil {
			if engine.CodeOf(err) == "" {
				return err
			}
			im.t.skip("user: "+describe(err), 1)
			continue
		}
		if err := im.m.put(ctx, "user", u.ID, created.ID); err != nil {
			return err
		}
		im.t.created("user", 1)
	}
	return nil
}

func (im *importer) importTags(ctx context.Context) error {
	if !im.src.has(ctx, "Tags") {
		return nil
	}
	type tag struct {
		id          int64
		name, color string
	}
	var rows []tag
	if err := im.src.each(ctx, qTags, func(r *sql.Rows) error {
		var t tag
		err := r.Scan(&t.id, &t.name, &t.color)
		rows = append(rows, t)
		return err
	}); err != nil {
		return err
	}
	for _, t := range rows {
		if _, ok := im.m.get("tag", t.id); ok {
			im.t.existing("tag", 1)
			continue
		}
		name, _ := clip(strings.TrimSpace(t.name), engine.TagNameMax)
		created, _, err := im.tags.Create(ctx, im.company, engine.TagInput{Name: name, Color: t.color})
		if err != nil {
			if engine.CodeOf(err) == "" {
				return err
			}
			im.t.skip("tag: "+describe(err), 1)
			continue
		}
		if err := im.m.put(ctx, "tag", t.id, created.ID); err != nil {
			return err
		}
		im.t.created("tag", 1)
	}
	return nil
}

func (im *importer) importQuickAnswers(ctx context.Context) error {
	table := "QuickAnswers"
	if !im.src.has(ctx, table) {
		return nil
	}
	type qa struct {
		id                int64
		shortcut, message string
	}
	var rows []qa
	if err := im.src.each(ctx, qQuickAnswers, func(r *sql.Rows) error {
		var q qa
		err := r.Scan(&q.id, &q.shortcut, &q.message)
		rows = append(rows, q)
		return err
	}); err != nil {
		return err
	}
	for _, q := range rows {
		if _, ok := im.m.get("quickanswer", q.id); ok {
			im.t.existing("quick answer", 1)
			continue
		}
		created, err := im.quick.Create(ctx, im.company, engine.QuickAnswerInput{Shortcut: engine.SanitizeText(q.shortcut),
			Message: engine.SanitizeText(q.message)})
		if err != nil {
			if engine.CodeOf(err) == "" {
				return err
			}
			im.t.skip("quick answer: "+describe(err), 1)
			continue
		}
		if err := im.m.put(ctx, "quickanswer", q.id, created.ID); err != nil {
			return err
		}
		im.t.created("quick answer", 1)
	}
	return nil
}

// importSettings carries the settings Atende has (whaticket-community's only one is
// userCreation); a setting imported once is not overwritten by a second run.
func (im *importer) importSettings(ctx context.Context) error {
	type kv struct{ key, value string }
	var rows []kv
	if err := im.src.each(ctx, qSettings, func(r *sql.Rows) error {
		var s kv
		err := r.Scan(&s.key, &s.value)
		rows = append(rows, s)
		return err
	}); err != nil {
		return err
	}
	for _, s := range rows {
		if _, ok := im.m.getS("setting", s.key); ok {
			im.t.existing("setting", 1)
			continue
		}
		in, err := engine.ValidateSetting(engine.SettingInput{Key: s.key, Value: s.value})
		if err != nil {
			im.t.skip("setting: no Atende equivalent or invalid value", 1)
			continue
		}
		if _, err := im.settings.Set(ctx, im.company, in.Key, in.Value); err != nil {
			return err
		}
		if err := im.m.putMany(ctx, "setting", []string{s.key}, []engine.ID{1}); err != nil {
			return err
		}
		im.t.created("setting", 1)
	}
	return nil
}

// contactNumber checks a whaticket number: digits (a leading + dropped) for a person,
// digits and dashes for a group — the form the WhatsApp channel gives new messages,
// so that a customer writing again finds the imported contact.
func contactNumber(number string, group bool) (string, bool) {
	n := strings.TrimPrefix(strings.TrimSpace(number), "+")
	if n == "" || len(n) > engine.PhoneMax {
		return "", false
	}
	for _, r := range n {
		if (r < '0' || r > '9') && !(group && r == '-') {
			return "", false
		}
	}
	if !group && len(n) < engine.PhoneMin {
		return "", false
	}
	return n, true
}

func (im *importer) importContacts(ctx context.Context) error {
	fields := map[int64][]engine.ExtraInfo{}
	if err := im.src.each(ctx, qCustomFields, func(r *sql.Rows) error {
		var id int64
		var x engine.ExtraInfo
		if err := r.Scan(&id, &x.Name, &x.Value); err != nil {
			return err
		}
		fields[id] = append(fields[id], x)
		return nil
	}); err != nil {
		return err
	}
	var rows []wtContact
	if err := im.src.each(ctx, qContacts, func(r *sql.Rows) error {
		var c wtContact
		err := r.Scan(&c.ID, &c.Name, &c.Number, &c.Email, &c.ProfilePicURL, &c.IsGroup, &c.CreatedAt)
		if _, ok := im.m.get("contact", c.ID); ok {
			im.t.existing("contact", 1)
			return err
		}
		rows = append(rows, c)
		return err
	}); err != nil {
		return err
	}
	// Contacts are independent rows: many at once, so that their commits share the
	// database's log flushes. Their import_map rows are written a chunk at a time; a
	// contact created before a stop is found again by its number on the next run.
	const chunk = 500
	for len(rows) > 0 {
		n := min(chunk, len(rows))
		if err := im.contactChunk(ctx, rows[:n], fields); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

func (im *importer) contactChunk(ctx context.Context, rows []wtContact, fields map[int64][]engine.ExtraInfo) error {
	work := make(chan wtContact)
	var g goroutine.Group
	var mu sync.Mutex // guards firstErr, sids, tids
	var firstErr error
	var sids []string
	var tids []engine.ID
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range im.cfg.Workers {
		g.Go(func() {
			for c := range work {
				id, err := im.importContact(wctx, c, fields[c.ID])
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				if err == nil && id != 0 {
					sids = append(sids, strconv.FormatInt(c.ID, 10))
					tids = append(tids, id)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, c := range rows {
		select {
		case work <- c:
		case <-wctx.Done():
			break feed
		}
	}
	close(work)
	g.Close()
	if err := im.m.putMany(ctx, "contact", sids, tids); err != nil {
		return err
	}
	im.t.created("contact", len(sids))
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// importContact finds or creates one contact and answers its id (0: skipped).
func (im *importer) importContact(ctx context.Context, c wtContact, extra []engine.ExtraInfo) (engine.ID, error) {
	group := c.IsGroup || strings.Contains(c.Number, "-")
	number, ok := contactNumber(c.Number, group)
	if !ok {
		im.t.skip("contact: invalid number", 1)
		return 0, nil
	}
	name, _ := clip(engine.SanitizeText(strings.TrimSpace(c.Name)), engine.NameMax)
	contact, _, err := im.contacts.FindOrCreateByNumber(ctx, im.company, number, name)
	if err != nil {
		if engine.CodeOf(err) == "" {
			return 0, err
		}
		im.t.skip("contact: "+describe(err), 1)
		return 0, nil
	}
	email := strings.TrimSpace(c.Email)
	if !group && (email != "" || len(extra) > 0) {
		// The e-mail and custom fields go through the contact form's validation;
		// a contact whose extras it refuses is kept without them.
		for i := range extra {
			extra[i].Name, _ = clip(engine.SanitizeText(extra[i].Name), engine.ExtraNameMax)
			extra[i].Value = engine.SanitizeText(extra[i].Value)
		}
		in := engine.ContactInput{Name: contact.Name, Number: number, Email: email, ExtraInfo: extra}
		if _, err := im.contacts.Update(ctx, im.company, contact.ID, in); err != nil {
			if engine.CodeOf(err) == "" {
				return 0, err
			}
			im.t.adjust("contact e-mail and custom fields dropped: "+describe(err), 1)
		}
	}
	return contact.ID, nil
}
