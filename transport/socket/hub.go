package socket

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"atende/transport/socket/sio"
	"atende/transport/wsconn"
)

// Filter decides, per recipient, whether a published event is delivered: a user
// outside a ticket's queue does not see the ticket's events even in a room it is
// in. It runs under the tenant's lock, once per member: keep it fast, pure and
// non-blocking.
type Filter interface {
	Visible(p Principal) bool
}

// FilterFunc adapts a function to Filter.
type FilterFunc func(p Principal) bool

// Visible calls f.
func (f FilterFunc) Visible(p Principal) bool { return f(p) }

// Event is what Publish sends: one event to the members of some rooms of one tenant.
type Event struct {
	Tenant  int64           // company id; positive
	Rooms   []Room          // at least one; a socket in several of them gets the event once
	Name    string          // "ticket", "appMessage", "contact", "whatsapp", "whatsappSession"…
	Payload json.RawMessage // a JSON object, {"action":…}; the hub adds "seq"
	Filter  Filter          // nil: every member sees it
	// Exempt lists rooms of Rooms whose members receive the event whatever Filter
	// says: joining them was authorised already (a chat box of a ticket the user may
	// read although it is outside their queues).
	Exempt []Room
	// Seq, when positive, is the event's number assigned outside the hub (the journal
	// position, the same on every node); the Backlog must be a NumberedBacklog and
	// numbers must grow. Zero: the Backlog numbers the event.
	Seq int64
	// Lead, when set, is a second frame of the same event, queued before it: to the
	// members of Lead.Rooms that Filter (or Exempt) lets see the event. It carries no
	// "seq", so a client that drops numbers it has seen still takes the main frame
	// that follows with the event's number. A socket in rooms of both gets both, lead
	// first: whaticket's ticket moves are a "delete" to the rooms the ticket left,
	// then an "update" to the room it entered, even when that is the same room.
	Lead *Lead
}

// Lead is the leading frame of an Event (see Event.Lead), of the event's name.
type Lead struct {
	Rooms   []Room          // at least one
	Payload json.RawMessage // a JSON object
}

func (ev Event) validate() error {
	switch {
	case ev.Tenant <= 0:
		return fmt.Errorf("event %q: tenant %d: %w", ev.Name, ev.Tenant, ErrInvalidEvent)
	case len(ev.Rooms) == 0:
		return fmt.Errorf("event %q: no rooms: %w", ev.Name, ErrInvalidEvent)
	case !sio.ValidEventName(ev.Name) || ev.Name == resyncEvent:
		return fmt.Errorf("event name %.40q: %w", ev.Name, ErrInvalidEvent)
	case !isObject(ev.Payload):
		return fmt.Errorf("event %q: payload is not a JSON object: %w", ev.Name, ErrInvalidEvent)
	}
	for _, r := range ev.Rooms {
		if !r.Valid() {
			return fmt.Errorf("event %q: room %v: %w", ev.Name, r, ErrInvalidEvent)
		}
	}
	if ev.Lead != nil {
		if len(ev.Lead.Rooms) == 0 || !isObject(ev.Lead.Payload) {
			return fmt.Errorf("event %q: lead without rooms or object payload: %w", ev.Name, ErrInvalidEvent)
		}
		for _, r := range ev.Lead.Rooms {
			if !r.Valid() {
				return fmt.Errorf("event %q: lead room %v: %w", ev.Name, r, ErrInvalidEvent)
			}
		}
	}
	return nil
}

func isObject(p json.RawMessage) bool {
	p = bytes.TrimSpace(p)
	return len(p) >= 2 && p[0] == '{' && json.Valid(p)
}

// resyncEvent is emitted to a socket whose missed events cannot be replayed:
// ["resync", {"reason": …, "seq": N}]. The client refetches what it shows and takes
// N as its last sequence number.
const resyncEvent = "resync"

// Reasons carried by resync.
const (
	ResyncGap            = "backlog_gap"      // the backlog no longer holds every missed event
	ResyncOverflow       = "backlog_overflow" // more missed events than a socket's replay allowance
	ResyncInvalidLastSeq = "invalid_last_seq" // the client's last sequence number was not a number
	ResyncUnavailable    = "backlog_error"    // the backlog failed
)

// HubConfig configures NewHub. Zero values are the defaults.
type HubConfig struct {
	// Backlog numbers events and keeps them for replay. Nil: a MemoryBacklog with
	// its defaults (10,000 events or 5 minutes per tenant).
	Backlog Backlog
	// MaxReplay bounds the events replayed to one socket per join; more missed events
	// than that (or than half the socket's queue) emit resync instead. Zero: 128.
	MaxReplay int
	// AppendOffset adds each event's sequence number, as a string, as a last argument:
	// the offset socket.io-client v4.6+ tracks for connection-state recovery and
	// sends back as auth "offset" on reconnect. Zero value: only "seq" in the payload.
	AppendOffset bool
	// Logger receives the hub's logs. Zero value: logs nothing.
	Logger zerolog.Logger
}

// Hub keeps the rooms of every tenant and fans published events out to the member
// sockets. Publish, Disconnect and Stats are safe for concurrent use.
//
// Each tenant has one lock that serialises its publishes, joins and leaves: a
// socket therefore receives its tenant's events in sequence order, and a join's
// replay meets live events with neither gap nor duplicate. Fan-out never blocks: a
// frame is encoded once per event and pushed to each member's bounded queue; a full
// queue disconnects that socket (CloseSlowConsumer).
type Hub struct {
	// static after construction
	backlog      Backlog
	maxReplay    int
	appendOffset bool
	log          zerolog.Logger

	mu      sync.RWMutex // guards tenants
	tenants map[int64]*tenantRooms

	published     atomic.Int64
	deliveries    atomic.Int64
	slowConsumers atomic.Int64
	resyncs       atomic.Int64
}

// tenantRooms is one tenant's rooms.
type tenantRooms struct {
	mu sync.Mutex // serialises the tenant's publishes, joins and leaves; guards rooms and the hub-owned fields of its sockets
	// rooms maps a room to its member sockets. Guarded by mu.
	rooms map[Room]map[*conn]struct{}
}

// NewHub builds a Hub.
func NewHub(cfg HubConfig) (*Hub, error) {
	if cfg.MaxReplay < 0 {
		return nil, fmt.Errorf("hub config: negative MaxReplay %d", cfg.MaxReplay)
	}
	h := &Hub{
		backlog:      cfg.Backlog,
		maxReplay:    cfg.MaxReplay,
		appendOffset: cfg.AppendOffset,
		log:          cfg.Logger,
		tenants:      make(map[int64]*tenantRooms),
	}
	if h.backlog == nil {
		b, err := NewMemoryBacklog(MemoryBacklogConfig{})
		if err != nil {
			return nil, fmt.Errorf("hub config: %w", err)
		}
		h.backlog = b
	}
	if h.maxReplay == 0 {
		h.maxReplay = 128
	}
	return h, nil
}

func (h *Hub) tenant(id int64) *tenantRooms {
	h.mu.RLock()
	t, ok := h.tenants[id]
	h.mu.RUnlock()
	if ok {
		return t
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok = h.tenants[id]; !ok {
		t = &tenantRooms{rooms: make(map[Room]map[*conn]struct{})}
		h.tenants[id] = t
	}
	return t
}

// Publish numbers ev with its tenant's next sequence number, keeps it in the
// backlog, and queues it to every member of its rooms that its Filter lets see it.
// It never waits on a socket. It returns the sequence number; an invalid event
// returns ErrInvalidEvent.
func (h *Hub) Publish(ev Event) (int64, error) {
	if err := ev.validate(); err != nil {
		return 0, fmt.Errorf("publish: %w", err)
	}
	rooms := slices.Clone(ev.Rooms)
	t := h.tenant(ev.Tenant)
	t.mu.Lock()
	defer t.mu.Unlock()
	build := func(seq int64) (*Record, error) {
		rec := &Record{Rooms: rooms, Name: ev.Name, Filter: ev.Filter, Exempt: slices.Clone(ev.Exempt),
			Frame: h.encode(ev.Name, ev.Payload, seq)}
		if ev.Lead != nil {
			rec.LeadRooms = slices.Clone(ev.Lead.Rooms)
			rec.LeadFrame = textFrame(sio.AppendEvent(nil, ev.Name, bytes.TrimSpace(ev.Lead.Payload)))
		}
		return rec, nil
	}
	var rec *Record
	var err error
	if ev.Seq > 0 {
		nb, ok := h.backlog.(NumberedBacklog)
		if !ok {
			return 0, fmt.Errorf("publish %s: numbered event but the backlog numbers its own: %w", ev.Name, ErrInvalidEvent)
		}
		rec, err = nb.AppendNumbered(ev.Tenant, ev.Seq, build)
	} else {
		rec, err = h.backlog.Append(ev.Tenant, build)
	}
	if err != nil {
		return 0, fmt.Errorf("publish %s to tenant %d: %w", ev.Name, ev.Tenant, err)
	}
	h.published.Add(1)
	// The lead frame first, to every socket it reaches: each socket's queue then holds
	// it before the main frame.
	n := h.fanOut(t, rec, rec.LeadRooms, rec.LeadFrame, -rec.Seq)
	n += h.fanOut(t, rec, rec.Rooms, rec.Frame, rec.Seq)
	h.deliveries.Add(n)
	return rec.Seq, nil
}

// fanOut queues frame once to every member of rooms that rec's Filter or Exempt lets
// see it; mark (the record's number, negated for its lead frame) tells the sockets
// already reached through another room. Caller holds the tenant's lock.
func (h *Hub) fanOut(t *tenantRooms, rec *Record, rooms []Room, frame []byte, mark int64) int64 {
	var n int64
	for _, r := range rooms {
		exempt := slices.Contains(rec.Exempt, r)
		for c := range t.rooms[r] {
			if c.mark == mark {
				continue // already reached through another room
			}
			if !exempt && rec.Filter != nil && !rec.Filter.Visible(c.principal) {
				continue // another room of c may still be exempt
			}
			c.mark = mark
			if h.deliver(c, frame) {
				n++
			}
		}
	}
	return n
}

// encode builds the websocket frame 42["name",{…payload…,"seq":N}] (plus ,"N" with
// AppendOffset), once for every recipient. payload has been validated as an object.
func (h *Hub) encode(name string, payload json.RawMessage, seq int64) []byte {
	p := bytes.TrimSpace(payload)
	buf := newMessage(len(p) + len(name) + 64)
	buf = append(buf, '4', '2', '[')
	buf = sio.AppendString(buf, name)
	buf = append(buf, ',')
	if len(bytes.TrimSpace(p[1:len(p)-1])) == 0 {
		buf = append(buf, '{')
	} else {
		buf = append(buf, p[:len(p)-1]...)
		buf = append(buf, ',')
	}
	// "seq" comes last: should the payload carry its own, JSON.parse keeps ours.
	buf = append(buf, `"seq":`...)
	buf = strconv.AppendInt(buf, seq, 10)
	buf = append(buf, '}')
	if h.appendOffset {
		buf = append(buf, ',', '"')
		buf = strconv.AppendInt(buf, seq, 10)
		buf = append(buf, '"')
	}
	buf = append(buf, ']')
	return finishText(buf)
}

// deliver queues frames to c, all or none; a full queue disconnects c. It reports
// whether the frames were queued.
func (h *Hub) deliver(c *conn, frames ...[]byte) bool {
	switch c.ws.Send(frames...) {
	case wsconn.Sent:
		return true
	case wsconn.Full: // Send closed c with CloseSlowConsumer
		h.slowConsumers.Add(1)
	}
	return false
}

// errTooManyRooms: a join beyond Config.MaxRooms.
var errTooManyRooms = errors.New("too many rooms")

// errDetached: the socket already left the hub.
var errDetached = errors.New("socket detached")

// join adds c to rooms of its tenant and queues to it, in this order: before (if
// any), the events of those rooms it missed since its last sequence number (or a
// resync), then after(the tenant's last sequence number) (if after is set). Every
// event published after join returns reaches c live, so the client has all of a
// room's events up to that number once it sees after's frame. limit bounds the
// rooms c holds, not counting its company and user rooms; negative: no bound.
func (h *Hub) join(c *conn, rooms []Room, before []byte, after func(last int64) []byte, limit int) error {
	t := h.tenant(c.tenant)
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.detached {
		return errDetached
	}
	old := c.allRooms()
	var fresh []Room
	for _, r := range rooms {
		if !slices.Contains(old, r) && !slices.Contains(fresh, r) {
			fresh = append(fresh, r)
		}
	}
	if limit >= 0 && c.joined()+len(fresh) > limit {
		return errTooManyRooms
	}
	var listed []Room // the fresh rooms c.rooms names: not its own company and user rooms
	for _, r := range fresh {
		members := t.rooms[r]
		if members == nil {
			members = make(map[*conn]struct{})
			t.rooms[r] = members
		}
		members[c] = struct{}{}
		switch {
		case r.Kind == RoomCompany:
			c.inCompany = true
		case c.ownUserRoom(r):
			c.inUser = true
		default:
			listed = append(listed, r)
		}
	}
	if len(listed) > 0 {
		c.rooms = append(slices.Clip(c.rooms), listed...)
	}

	var frames [][]byte
	if before != nil {
		frames = append(frames, before)
	}
	if len(fresh) > 0 {
		frames = h.replay(c, old, fresh, frames)
	}
	if after != nil {
		last, err := h.backlog.Last(c.tenant)
		if err != nil {
			h.log.Error().Err(err).Int64("tenant", c.tenant).Msg("backlog last sequence number")
		}
		frames = append(frames, after(last))
	}
	if len(frames) > 0 {
		h.deliver(c, frames...)
	}
	return nil
}

// replay appends to frames what c missed in rooms fresh since c.lastSeq: the events
// held for those rooms, except those also sent to a room in old (c got them there),
// or a single resync. Caller holds the tenant's lock.
func (h *Hub) replay(c *conn, old, fresh []Room, frames [][]byte) [][]byte {
	if c.resynced || (!c.replay && c.resync == "") {
		return frames
	}
	reason := c.resync
	if reason == "" {
		allowance := min(h.maxReplay, c.ws.QueueSize()/2)
		start := len(frames)
		err := h.backlog.Replay(c.tenant, c.lastSeq, func(rec *Record) bool {
			lead := rec.LeadFrame != nil && touches(rec.LeadRooms, fresh) && !touches(rec.LeadRooms, old)
			main := touches(rec.Rooms, fresh) && !touches(rec.Rooms, old)
			if !lead && !main {
				return true
			}
			if rec.Filter != nil && !touches(rec.Exempt, fresh) && !rec.Filter.Visible(c.principal) {
				return true
			}
			if len(frames)-start >= allowance {
				reason = ResyncOverflow
				return false
			}
			if lead {
				frames = append(frames, rec.LeadFrame)
			}
			if main {
				frames = append(frames, rec.Frame)
			}
			return true
		})
		switch {
		case errors.Is(err, ErrBacklogGap):
			reason = ResyncGap
		case err != nil:
			h.log.Error().Err(err).Int64("tenant", c.tenant).Msg("backlog replay")
			reason = ResyncUnavailable
		}
		if reason == "" {
			return frames
		}
		frames = frames[:start]
	}
	c.resynced = true
	h.resyncs.Add(1)
	last, err := h.backlog.Last(c.tenant)
	if err != nil {
		h.log.Error().Err(err).Int64("tenant", c.tenant).Msg("backlog last sequence number")
	}
	msg := sio.AppendEvent(nil, resyncEvent, json.RawMessage(`{"reason":"`+reason+`","seq":`+strconv.FormatInt(last, 10)+`}`))
	return append(frames, textFrame(msg))
}

func touches(a, b []Room) bool {
	for _, r := range a {
		if slices.Contains(b, r) {
			return true
		}
	}
	return false
}

// leave takes c out of room.
func (h *Hub) leave(c *conn, room Room) {
	t := h.tenant(c.tenant)
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case room.Kind == RoomCompany:
		if !c.inCompany {
			return
		}
		c.inCompany = false
	case c.ownUserRoom(room):
		if !c.inUser {
			return
		}
		c.inUser = false
	default:
		i := slices.Index(c.rooms, room)
		if i < 0 {
			return
		}
		c.rooms = slices.Delete(c.rooms, i, i+1)
	}
	t.remove(room, c)
}

// detach takes c out of every room for good.
func (h *Hub) detach(c *conn) {
	t := h.tenant(c.tenant)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range c.allRooms() {
		t.remove(r, c)
	}
	c.rooms, c.inCompany, c.inUser = nil, false, false
	c.detached = true
}

// remove drops c from room's members. Caller holds t.mu.
func (t *tenantRooms) remove(room Room, c *conn) {
	members := t.rooms[room]
	delete(members, c)
	if len(members) == 0 {
		delete(t.rooms, room)
	}
}

// Disconnect ends every socket of user userID in tenant: each gets the DISCONNECT
// packet "41" (so socket.io-client does not reconnect by itself) and is closed with
// CloseNormal. Use it on logout or when a user is deleted. It returns how many
// sockets it ended.
func (h *Hub) Disconnect(tenant, userID int64) int {
	t := h.tenant(tenant)
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for c := range t.rooms[UserRoom(userID)] {
		c.ws.Queue(disconnectFrame)
		c.closeWith(CloseNormal, "session ended", true)
		n++
	}
	return n
}

// EndSession ends the sockets of user userID (in whatever tenant) that belong to
// session, the login that was logged out: each gets the DISCONNECT packet, so
// socket.io-client does not reconnect, and is closed with CloseNormal. The user's
// other sessions (another browser) keep their sockets. Use it when a node
// announces a logout (cmd/atende). It returns how many sockets it ended.
func (h *Hub) EndSession(userID int64, session string) int {
	if session == "" {
		return 0
	}
	tenants := h.allTenants()
	n := 0
	for _, t := range tenants {
		t.mu.Lock()
		for c := range t.rooms[UserRoom(userID)] {
			if c.principal.Session != session {
				continue
			}
			c.ws.Queue(disconnectFrame)
			c.closeWith(CloseNormal, "logged out", true)
			n++
		}
		t.mu.Unlock()
	}
	return n
}

// Reauthenticate ends every socket of user userID, in whatever tenant, without the
// DISCONNECT packet: the client reconnects by itself and authenticates again, so a
// token made stale by a change to the user (profile, queues, password, deletion)
// is refused and the client refreshes it — or is signed out when it can no longer.
// Use it when another node announces the user's credentials changed
// (engine.Revocations). It returns how many sockets it ended.
func (h *Hub) Reauthenticate(userID int64) int {
	tenants := h.allTenants()
	n := 0
	for _, t := range tenants {
		t.mu.Lock()
		for c := range t.rooms[UserRoom(userID)] {
			c.closeWith(CloseReauthenticate, "credentials changed", true)
			n++
		}
		t.mu.Unlock()
	}
	return n
}

// allTenants snapshots the tenants' rooms, for walking them without h.mu.
func (h *Hub) allTenants() []*tenantRooms {
	h.mu.RLock()
	defer h.mu.RUnlock()
	tenants := make([]*tenantRooms, 0, len(h.tenants))
	for _, t := range h.tenants {
		tenants = append(tenants, t)
	}
	return tenants
}

// Online lists the principal of every user with a socket joined to the hub, one
// per (tenant, user): the queues of one of their sockets. For presence.
func (h *Hub) Online() []Principal {
	tenants := h.allTenants()
	var out []Principal
	for _, t := range tenants {
		t.mu.Lock()
		for room, members := range t.rooms {
			if room.Kind != RoomUser {
				continue
			}
			for c := range members {
				out = append(out, c.principal)
				break
			}
		}
		t.mu.Unlock()
	}
	return out
}

// members counts the sockets in room of tenant.
func (h *Hub) members(tenant int64, room Room) int {
	t := h.tenant(tenant)
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.rooms[room])
}

// HubStats are the hub's counters since it was built.
type HubStats struct {
	Published     int64 // events published
	Deliveries    int64 // frames queued to sockets by Publish
	SlowConsumers int64 // sockets disconnected because their queue was full
	Resyncs       int64 // resync events sent instead of a replay
}

// Stats reads the hub's counters.
func (h *Hub) Stats() HubStats {
	return HubStats{
		Published:     h.published.Load(),
		Deliveries:    h.deliveries.Load(),
		SlowConsumers: h.slowConsumers.Load(),
		Resyncs:       h.resyncs.Load(),
	}
}
