package webchat

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"atende/engine"
	"atende/transport/call"
	"atende/transport/ingest"
	"atende/transport/netlimit"
)

// Refusals the reader answers with an error frame.
var (
	errBinary      = engine.Wrap(engine.ErrInvalidJSON, errors.New("binary frame"))
	errTooLarge    = engine.Wrap(engine.ErrBodyTooLarge, errors.New("frame above MaxFrameSize"))
	errInvalidUTF8 = engine.Wrap(engine.ErrInvalidJSON, errors.New("invalid UTF-8"))
)

var pongFrame = textFrame(pongPayload)

// inboundID is the ProviderID of a visitor's message.
func inboundID(vid, clientID string) string { return "wc:" + vid + ":" + clientID }

// outboundID is the provider id Channel.Send answers for message id.
func outboundID(id engine.ID) string { return "wc-out:" + strconv.FormatInt(id, 10) }

// shownTypes are the media types a visitor may see; the others (whispers, actions,
// call logs, AI drafts) are the business's own and never leave the inbox.
var shownTypes = map[string]bool{
	"": true, engine.MediaImage: true, engine.MediaAudio: true, engine.MediaVideo: true, engine.MediaDocument: true,
}

// welcome queues the welcome frame — the visitor token and the conversation so far —
// ahead of anything already pending, and lets the writer go.
func (sk *socket) welcome() {
	srv := sk.srv
	var items []HistoryItem
	if h := srv.cfg.History; h != nil && srv.cfg.HistoryLimit > 0 {
		ctx, cancel := context.WithTimeout(sk.ep.ctx, srv.cfg.HistoryTimeout)
		var err error
		items, err = h.History(ctx, sk.ep.conn.ID, sk.vis.number, srv.cfg.HistoryLimit)
		cancel()
		if err != nil {
			sk.log.Warn().Err(err).Msg("webchat history")
			items = nil
		}
	}
	// No history: no conversation open, so the first message starts one (a contact
	// and a pending ticket) and counts against the new-visitor limits.
	sk.fresh = len(items) == 0
	sort.SliceStable(items, func(i, j int) bool { return items[i].At.Before(items[j].At) })
	if len(items) > srv.cfg.HistoryLimit {
		items = items[len(items)-srv.cfg.HistoryLimit:]
	}
	history := make([]messageFrame, 0, len(items))
	for _, it := range items {
		if !shownTypes[it.MediaType] {
			continue
		}
		f := srv.historyFrame(sk.ep, sk.vis.id, it)
		if it.FromMe && it.Ack < engine.AckRead {
			sk.remember(f.ID)
		}
		history = append(history, f)
	}
	zone := engine.QueueTimeZone
	if srv.cfg.ZoneName != nil {
		zone = srv.cfg.ZoneName(sk.ep.ctx, sk.ep.conn.CompanyID)
	}
	welcome := welcomeFrame{Type: "welcome", Visitor: sk.token, TimeZone: zone, History: history}
	if sk.fresh && srv.cfg.ProofOfWorkBits > 0 {
		sk.seed = newSeed()
		welcome.Challenge = &challengeFrame{Seed: sk.seed, Bits: srv.cfg.ProofOfWorkBits}
	}
	sk.ws.Open(textFrame(encode(welcome)))
}

// historyFrame is the wire form of a history item. The visitor's messages keep the
// client ids the widget gave them; the business's carry their provider id.
func (s *Server) historyFrame(ep *endpoint, vid string, it HistoryItem) messageFrame {
	id := it.ProviderID
	switch {
	case !it.FromMe && strings.HasPrefix(id, "wc:"+vid+":"):
		id = strings.TrimPrefix(id, "wc:"+vid+":")
	case id == "" && it.FromMe:
		id = outboundID(it.MessageID)
	case id == "":
		id = "m:" + strconv.FormatInt(it.MessageID, 10)
	}
	return messageFrame{ID: id, Body: it.Body, FromMe: it.FromMe, At: stamp(it.At), Media: s.media(ep, it.MediaType, it.MediaPath, it.MediaName)}
}

// media is the attachment of a message frame, nil for text.
func (s *Server) media(ep *endpoint, typ, path, name string) *Media {
	if typ == "" {
		return nil
	}
	m := &Media{Type: typ, Name: name}
	if s.cfg.MediaURL != nil && path != "" {
		u, err := s.cfg.MediaURL(ep.conn.CompanyID, path, name)
		if err != nil {
			ep.log.Warn().Err(err).Str("path", path).Msg("webchat media url")
		} else {
			m.URL = u
		}
	}
	return m
}

// handle processes one text frame from the widget.
func (sk *socket) handle(buf []byte) {
	cfg := sk.srv.cfg
	f, err := parseClientFrame(buf, cfg.MaxFrameSize, cfg.MaxBodyLength)
	if err != nil {
		sk.log.Debug().Err(err).Msg("webchat frame refused")
		if f.Type == FrameMessage && f.Seq > 0 {
			// Refused for good: the widget drops it and sends the next number.
			sk.vis.order.mu.Lock()
			sk.vis.order.taken(f.Seq, "")
			sk.vis.order.mu.Unlock()
		}
		sk.refuseFrame(err, f.ID) // a refused message's or call frame's id, so the widget can match it; "" otherwise
		return
	}
	now := cfg.Now()
	if ok, wait := sk.frames.take(now); !ok {
		sk.refuseRate(f.ID, wait)
		return
	}
	switch f.Type {
	case FramePing:
		sk.send(pongFrame)
	case FrameHello:
		sk.touch(now)
		sk.name, sk.email = f.Name, f.Email
	case FrameMessage:
		sk.touch(now)
		if ok, wait := sk.vis.limiter.take(now); !ok {
			sk.refuseRate(f.ID, wait)
			return
		}
		if !sk.admit(f.ID) {
			return
		}
		if f.Seq == 0 {
			sk.inbound(f, now)
		} else {
			sk.inboundInOrder(f, now)
		}
	case FrameRead:
		sk.touch(now)
		sk.read(f.IDs)
	case FrameResume:
		o := &sk.vis.order
		o.mu.Lock()
		o.resume(f.Seq, now)
		o.mu.Unlock()
	case FrameProof:
		if sk.seed == "" || !proofOK(sk.seed, f.Nonce, cfg.ProofOfWorkBits) {
			sk.refuseFrame(invalid("nonce", engine.MsgInvalidValue), "")
			return
		}
		sk.proven = true
	case FrameCallJoin:
		sk.touch(now)
		if err := sk.callJoin(f); err != nil {
			sk.refuseFrame(err, f.ID)
			return
		}
	case FrameCallSignal:
		sk.touch(now)
		if err := sk.callSignal(f); err != nil {
			sk.refuseFrame(err, f.ID)
			return
		}
	}
	sk.strikes = 0
}

// callJoin puts this socket in the call of the frame's token, as its customer,
// and answers call.joined. call.Relay.JoinCustomer verifies the token as the
// gateway does; this socket's own check is that the call is of its connection's
// tenant (ERR_NOT_FOUND otherwise: another tenant's call is not revealed) and of
// the ticket of its visitor's conversation (ERR_NO_PERMISSION otherwise: a visitor
// joins no other visitor's call).
func (sk *socket) callJoin(f ClientFrame) error {
	relay := sk.srv.cfg.Calls
	if relay == nil {
		return engine.E(engine.ErrUnavailable)
	}
	ep := sk.ep
	ctx, cancel := context.WithTimeout(ep.ctx, sk.srv.cfg.SinkTimeout)
	defer cancel()
	j, err := relay.JoinCustomer(ctx, sk, f.Token, func(c call.Claims) error {
		if c.Tenant != ep.conn.CompanyID {
			return engine.E(engine.ErrNotFound)
		}
		ticket, err := sk.srv.cfg.CallTicket(ctx, ep.conn.ID, sk.vis.number)
		if err != nil {
			sk.log.Warn().Err(err).Msg("webchat call: the visitor's ticket")
			return engine.E(engine.ErrUnavailable)
		}
		if ticket == 0 || ticket != c.Ticket {
			return engine.E(engine.ErrNoPermission)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sk.send(textFrame(encode(callJoinedFrame{Type: "call.joined", ID: f.ID, Joined: j})))
	return nil
}

// callSignal relays the frame's signal to the other party of this socket's call
// (ERR_NOT_FOUND unless this socket joined that call) and answers call.ack.
func (sk *socket) callSignal(f ClientFrame) error {
	relay := sk.srv.cfg.Calls
	if relay == nil {
		return engine.E(engine.ErrUnavailable)
	}
	ctx, cancel := context.WithTimeout(sk.ep.ctx, sk.srv.cfg.SinkTimeout)
	defer cancel()
	if err := relay.Signal(ctx, sk, *f.Signal); err != nil {
		return err
	}
	sk.send(textFrame(encode(callAckFrame{Type: "call.ack", ID: f.ID})))
	return nil
}

// admit counts a visitor's first message of a conversation against the new-visitor
// limits — its client address's, then its connection's, so that an address over
// its own limit spends nothing of the connection's — and answers false, after an
// error frame with "limit":"newVisitor" and "retryAfter", when either is spent.
// Messages of a visitor with a conversation, or already admitted, pass.
func (sk *socket) admit(id string) bool {
	if !sk.fresh || sk.vis.started.Load() {
		return true
	}
	srv := sk.srv
	if sk.seed != "" && !sk.proven {
		sk.refuseLimit(id, limitProof, 0)
		return false
	}
	ok, wait := srv.takeNew(sk, srv.cfg.SharedNewVisitorsByAddress, srv.newByAddr, sk.addr)
	if ok {
		ok, wait = srv.takeNew(sk, srv.cfg.SharedNewVisitorsByConnection, srv.newByConn, strconv.FormatInt(sk.ep.conn.ID, 10))
	}
	if !ok {
		sk.log.Debug().Str("addr", sk.addr).Dur("retry_after", wait).Msg("webchat new visitor refused: limit reached")
		srv.refusedNew.Add(1)
		sk.refuseLimit(id, limitNewVisitor, max(1, int((wait+time.Second-1)/time.Second)))
		return false
	}
	sk.vis.started.Store(true)
	return true
}

// refuseLimit answers message id, refused by limit, with ERR_TOO_MANY_ATTEMPTS naming
// the limit (and when to try again, in seconds, if retryAfter > 0), and closes the
// socket after Config.MaxStrikes refusals in a row.
func (sk *socket) refuseLimit(id, limit string, retryAfter int) {
	sk.strikes++
	sk.send(textFrame(encode(errorFrame{Type: "error", Code: engine.ErrTooManyAttempts, ID: id, Limit: limit, RetryAfter: retryAfter})))
	if sk.strikes >= sk.srv.cfg.MaxStrikes {
		sk.closeWith(ClosePolicyViolation, "too many refused frames", true)
	}
}

// refuseRate answers a frame over a rate (the socket's frames, the visitor's
// messages) with ERR_TOO_MANY_ATTEMPTS, "limit":"rate" and when a token is back, in
// whole seconds (at least 1), so the widget waits rather than strikes out.
func (sk *socket) refuseRate(id string, wait time.Duration) {
	sk.refuseLimit(id, limitRate, seconds(wait))
}

// seconds is d rounded up to whole seconds, at least 1.
func seconds(d time.Duration) int { return max(1, int((d+time.Second-1)/time.Second)) }

// inboundInOrder records a numbered message in its visitor's order (order.go):
// the next number (or a late one) goes to the sink, a duplicate is acknowledged
// without it, and one ahead of the next is refused with ERR_OUT_OF_ORDER and
// "retryAfter" until the gap wait is over. The visitor's order is held across the
// sink call, so its tabs record numbered messages one at a time.
func (sk *socket) inboundInOrder(f ClientFrame, now time.Time) {
	o := &sk.vis.order
	o.mu.Lock()
	defer o.mu.Unlock()
	switch verdict, _ := o.decide(f.Seq, f.ID, now, sk.srv.cfg.SeqGapWait); verdict {
	case seqDuplicate:
		sk.send(textFrame(encode(ackFrame{Type: "ack", ID: f.ID})))
	case seqGap:
		// An answer, as a sink's ERR_UNAVAILABLE is, not a strike: the frame was fine.
		// Retry in a second, well within the gap wait: the missing number, sent
		// meanwhile, is taken by then, and this one is not overtaken.
		sk.send(textFrame(encode(errorFrame{Type: "error", Code: engine.ErrOutOfOrder, ID: f.ID,
			RetryAfter: 1, Expected: o.next})))
	case seqTake:
		if sk.inbound(f, now) {
			o.taken(f.Seq, f.ID)
		}
	}
}

// takeNew takes a new-visitor token for key: from the shared limiter when there is
// one, else (or when it fails) from this Server's own buckets.
func (s *Server) takeNew(sk *socket, shared Limiter, local *netlimit.Buckets, key string) (bool, time.Duration) {
	if shared != nil {
		ctx, cancel := context.WithTimeout(sk.ep.ctx, s.cfg.SinkTimeout)
		ok, wait, err := shared.Take(ctx, key)
		cancel()
		if err == nil {
			return ok, wait
		}
		sk.log.Warn().Err(err).Msg("webchat shared new-visitor limit unavailable: counting on this node")
	}
	return local.Take(key)
}

// touch records visitor activity (for IdleTimeout).
func (sk *socket) touch(now time.Time) { sk.lastActive.Store(now.UnixNano()) }

// refuseFrame answers a refused frame with an error frame and closes the socket
// after Config.MaxStrikes refusals in a row.
func (sk *socket) refuseFrame(err error, id string) {
	sk.strikes++
	sk.send(textFrame(errorPayload(err, id)))
	if sk.strikes >= sk.srv.cfg.MaxStrikes {
		sk.closeWith(ClosePolicyViolation, "too many refused frames", true)
	}
}

// inbound hands a visitor's message to the sink and acknowledges it once the sink
// accepted it (it is durable then); other tabs of the visitor get it too. A failure
// answers an error frame with the message's id: the widget keeps the message and
// sends it again later, which the sink de-duplicates on ProviderID.
// It reports whether the sink recorded the message.
func (sk *socket) inbound(f ClientFrame, now time.Time) bool {
	ep := sk.ep
	if sk.srv.stopped(ep) {
		sk.send(textFrame(errorPayload(engine.E(engine.ErrWappNotInitialized), f.ID)))
		sk.closeWith(CloseNotInitialized, "connection stopped", true)
		return false
	}
	ctx, cancel := context.WithTimeout(ep.ctx, sk.srv.cfg.SinkTimeout)
	defer cancel()
	err := sk.srv.cfg.Admission.Sink(ep.conn.ID, ep.sink).Inbound(ctx, engine.InboundMessage{
		ProviderID: inboundID(sk.vis.id, f.ID),
		From:       engine.ChannelContact{Number: sk.vis.number, Name: sk.name},
		Body:       f.Body,
		At:         now,
	})
	if err != nil {
		var e *engine.Error
		if !errors.As(err, &e) {
			err = engine.Wrap(engine.ErrUnavailable, err)
		}
		if o, ok := ingest.Retryable(err); ok {
			// The node sheds load, or the actor did not answer in time: an answer,
			// not a strike; the widget keeps the message and sends it again then.
			ev := sk.log.Debug() // shed load: counted by the Limiter, not logged one by one
			if o.Reason == ingest.ReasonStalled {
				ev = sk.log.Warn()
			}
			ev.Err(err).Str("client_id", f.ID).Msg("webchat inbound refused: retry later")
			sk.send(textFrame(encode(errorFrame{Type: "error", Code: engine.ErrUnavailable, ID: f.ID,
				RetryAfter: o.RetryAfterSeconds()})))
			return false
		}
		sk.log.Warn().Err(err).Str("client_id", f.ID).Msg("webchat inbound not recorded")
		sk.send(textFrame(errorPayload(err, f.ID)))
		return false
	}
	sk.send(textFrame(encode(ackFrame{Type: "ack", ID: f.ID})))
	var echo []byte
	for _, other := range sk.srv.socketsOf(ep, sk.vis.id) {
		if other == sk {
			continue
		}
		if echo == nil {
			echo = textFrame(encode(messageFrame{Type: "message", ID: f.ID, Body: f.Body, At: stamp(now)}))
		}
		other.send(echo)
	}
	// The visitor's tabs on other nodes hear of it from this one's widget (a
	// BroadcastChannel in the browser), not through the cluster: doc.go, "Tabs".
	return true
}

// read turns the widget's "displayed" report into read receipts, for the attendant
// messages this socket was shown and not yet reported.
func (sk *socket) read(ids []string) {
	ep := sk.ep
	for _, id := range ids {
		if !sk.forget(id) {
			continue
		}
		ctx, cancel := context.WithTimeout(ep.ctx, sk.srv.cfg.SinkTimeout)
		err := ep.sink.Receipt(ctx, engine.Receipt{ProviderID: id, Ack: engine.AckRead})
		cancel()
		if err != nil {
			sk.log.Debug().Err(err).Str("provider_id", id).Msg("webchat read receipt not recorded")
		}
	}
}
