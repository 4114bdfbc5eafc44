package socket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/socket/sio"
)

// packet handles one Socket.IO packet from the client.
func (c *conn) packet(data []byte) {
	p, err := sio.DecodePacket(data)
	if err != nil {
		c.refuse(err)
		return
	}
	if p.Namespace != sio.RootNamespace {
		if p.Type == sio.PacketConnect {
			c.send(textFrame(sio.AppendConnectError(nil, p.Namespace, msgInvalidNamespace)))
		}
		return // socket.io ignores packets for namespaces it did not connect
	}
	switch {
	case !c.connected && p.Type == sio.PacketConnect:
		c.connect(p.Data)
	case !c.connected:
		c.closeWith(CloseProtocolError, p.Type.String()+" before CONNECT", true)
	case p.Type == sio.PacketEvent:
		c.event(p)
	case p.Type == sio.PacketAck:
		// The server never asks for acknowledgements: nothing to match.
	case p.Type == sio.PacketDisconnect:
		c.closeWith(CloseNormal, "client disconnected", true)
	default:
		c.closeWith(CloseProtocolError, "unexpected "+p.Type.String(), true)
	}
}

// connectAuth is the CONNECT packet's auth object. Fields are raw so that a wrong
// type is told apart from an absent field.
type connectAuth struct {
	Token   json.RawMessage // "token"
	LastSeq json.RawMessage // "lastSeq"
	PID     json.RawMessage // "pid": socket.io v4.6+ connection-state recovery
	Offset  json.RawMessage // "offset": idem, the last offset the client saw
	// Rooms ("rooms") are the joins the client is about to repeat, each the array of
	// its join event: [["joinTickets","open"],["joinChatBox","12"],["joinNotification"]].
	Rooms json.RawMessage
}

// parseConnectAuth reads the auth object (already validated as JSON by the codec)
// without encoding/json: reflection would leave the reader's stack deeper for the
// socket's whole life.
func parseConnectAuth(data json.RawMessage) (connectAuth, error) {
	var a connectAuth
	if len(data) == 0 {
		return a, nil
	}
	err := sio.ObjectFields(data, func(key string, v json.RawMessage) {
		switch key {
		case "token":
			a.Token = v
		case "lastSeq":
			a.LastSeq = v
		case "pid":
			a.PID = v
		case "offset":
			a.Offset = v
		case "rooms":
			a.Rooms = v
		}
	})
	return a, err
}

// connect authenticates the socket and, on success, answers 40{"sid","pid"}, puts it
// in its company and user rooms and replays what it missed there.
func (c *conn) connect(data json.RawMessage) {
	auth, err := parseConnectAuth(data)
	if err != nil {
		c.deny(engine.ErrInvalidToken, err)
		return
	}
	var query handshakeQuery
	if c.query != nil {
		query, c.query = *c.query, nil
	}
	token := query.token
	if token == "" {
		token = jsonString(auth.Token)
	}
	token = stripBearer(token)
	if token == "" {
		c.deny(engine.ErrSessionExpired, nil)
		return
	}
	ctx, cancel := context.WithTimeout(c.srv.ctx, c.srv.cfg.AuthTimeout)
	p, err := c.srv.cfg.Authenticator.Authenticate(ctx, token)
	cancel()
	if err != nil {
		c.deny(authCode(err), err)
		return
	}
	if p.CompanyID <= 0 {
		c.logAt(zerolog.ErrorLevel).Int64("user_id", p.UserID).Msg("authenticator returned a principal without a company")
		c.deny(engine.ErrInvalidToken, nil)
		return
	}
	if c.closing() {
		return
	}

	c.principal, c.tenant = p, p.CompanyID
	if !p.ExpiresAt.IsZero() {
		c.expires.Store(max(p.ExpiresAt.UnixNano(), 1))
	}
	c.lastSeq, c.replay, c.resync = lastSeqOf(query.lastSeq, auth)
	var rooms []Room // a call guest hears nothing of its tenant
	if !p.Guest() {
		rooms = append(rooms, CompanyRoom())
		if p.UserID > 0 {
			rooms = append(rooms, UserRoom(p.UserID))
		}
	}
	// The rooms the client declared are joined now, with the company and user rooms,
	// so that what it missed in all of them is replayed as one stream in sequence
	// order; joined one by one afterwards, a later room's older events would reach a
	// client that already saw newer ones, and the client rule (drop what is not above
	// the last seq seen) would discard them.
	rooms = append(rooms, c.declaredRooms(auth.Rooms)...)
	reply := textFrame(sio.AppendConnect(nil, randomID(), randomID()))
	if err := c.srv.hub.join(c, rooms, reply, nil, -1); err != nil {
		c.closeWith(CloseInternalError, "join company room: "+err.Error(), true)
		return
	}
	c.connected = true
	c.extendRead(c.srv.cfg.PingInterval + c.srv.cfg.PingTimeout)
	c.logAt(zerolog.DebugLevel).Int64("user_id", p.UserID).Int64("tenant", p.CompanyID).
		Bool("replay", c.replay).Int64("last_seq", c.lastSeq).Msg("socket connected")
}

// authCode is the CONNECT_ERROR code for an Authenticator failure: the engine codes
// that tell the client what to do pass through (expired: refresh the token;
// unavailable or internal: retry later), a timeout is unavailable, and anything else
// is an invalid token.
func authCode(err error) engine.Code {
	var e *engine.Error
	switch {
	case errors.As(err, &e) && (e.Code == engine.ErrSessionExpired || e.Code == engine.ErrUnavailable || e.Code == engine.ErrInternal):
		return e.Code
	case errors.Is(err, context.DeadlineExceeded):
		return engine.ErrUnavailable
	}
	return engine.ErrInvalidToken
}

// deny answers CONNECT_ERROR with code and closes the socket.
func (c *conn) deny(code engine.Code, cause error) {
	c.logAt(zerolog.InfoLevel).Err(cause).Str("code", string(code)).Msg("socket authentication refused")
	c.send(textFrame(sio.AppendConnectError(nil, sio.RootNamespace, string(code))))
	c.closeWith(ClosePolicyViolation, string(code), true)
}

// lastSeqOf finds the client's last sequence number: query lastSeq=, else auth
// "lastSeq" (a number or a decimal string), else auth "offset" (connection-state
// recovery). ok is false when the client gave none, or 0 (a fresh client: sequence
// numbers start far above 0); resync names a reason to send resync when what it gave
// is not a number.
func lastSeqOf(query string, auth connectAuth) (seq int64, ok bool, resync string) {
	raw := ""
	switch {
	case query != "":
		raw = query
	case len(auth.LastSeq) > 0 && string(auth.LastSeq) != "null":
		raw = jsonString(auth.LastSeq)
		if raw == "" {
			raw = string(auth.LastSeq)
		}
	case len(auth.Offset) > 0 && string(auth.Offset) != "null":
		raw = jsonString(auth.Offset)
		if raw == "" {
			raw = string(auth.Offset)
		}
	default:
		return 0, false, ""
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case err != nil || n < 0 || n > 1<<53-1:
		return 0, false, ResyncInvalidLastSeq
	case n == 0:
		return 0, false, "" // a client that has seen nothing yet: nothing to replay
	}
	return n, true, ""
}

// jsonString decodes raw as a JSON string; "" if it is not one.
func jsonString(raw json.RawMessage) string {
	s, _ := sio.DecodeString(raw)
	return s
}

// stripBearer removes a leading "Bearer " (any case) and blanks.
func stripBearer(tok string) string {
	tok = strings.TrimSpace(tok)
	if strings.EqualFold(tok, "bearer") {
		return ""
	}
	if len(tok) > 7 && strings.EqualFold(tok[:7], "bearer ") {
		tok = strings.TrimSpace(tok[7:])
	}
	return tok
}

// Client events (spec section 7).
const (
	evJoinChatBox       = "joinChatBox"
	evLeaveChatBox      = "leaveChatBox"
	evJoinTickets       = "joinTickets"
	evLeaveTickets      = "leaveTickets"
	evJoinNotification  = "joinNotification"
	evLeaveNotification = "leaveNotification"
)

// event handles a client EVENT: the joins and leaves of spec section 7. Each is
// answered through the ack, when the client asked for one: {"ok":true,"seq":N} or
// {"error":"ERR_…"}.
func (c *conn) event(p sio.Packet) {
	name, args, err := sio.DecodeEvent(p.Data)
	if err != nil { // DecodePacket already checked it
		c.refuse(err)
		return
	}
	room, ok, known := roomOfEvent(name, args)
	if !known {
		if h := c.srv.cfg.Events; h != nil && h.Handles(name) {
			c.handled(p, h, name, args)
			return
		}
		c.logAt(zerolog.DebugLevel).Str("event", name).Msg("unknown client event")
		c.answer(p, engine.ErrValidation)
		return
	}
	if !ok {
		c.answer(p, engine.ErrValidation)
		return
	}
	if c.principal.Guest() {
		c.answer(p, engine.ErrNoPermission)
		return
	}
	if strings.HasPrefix(name, "leave") {
		c.srv.hub.leave(c, room)
		c.answer(p, "")
		return
	}
	c.join(p, room)
}

// roomOfEvent names the room a join or leave event is about; ok is false for a bad
// argument, known is false for an event that is neither.
func roomOfEvent(name string, args []json.RawMessage) (room Room, ok, known bool) {
	ok = true
	switch name {
	case evJoinChatBox, evLeaveChatBox:
		var id int64
		id, ok = ticketArg(args)
		room = ChatBoxRoom(id)
	case evJoinTickets, evLeaveTickets:
		var status string
		if len(args) > 0 {
			status = jsonString(args[0])
		}
		ok = validStatus(status)
		room = TicketsRoom(status)
	case evJoinNotification, evLeaveNotification:
		room = NotificationRoom()
	default:
		return Room{}, false, false
	}
	return room, ok, true
}

// declaredRooms are the rooms of the CONNECT auth's "rooms" that the principal may
// join (each authorised as its join event would be), at most MaxRooms; anything
// malformed, unknown, a leave or refused is skipped: the client's own join event
// then answers the error.
func (c *conn) declaredRooms(raw json.RawMessage) []Room {
	if len(raw) == 0 {
		return nil
	}
	if c.principal.Guest() {
		return nil // a call guest joins no room
	}
	items, err := sio.SplitArray(raw, c.srv.cfg.MaxRooms)
	if err != nil {
		c.logAt(zerolog.DebugLevel).Err(err).Msg("connect auth: rooms ignored")
		return nil
	}
	var out []Room
	for _, item := range items {
		name, args, err := sio.DecodeEvent(item)
		if err != nil || !strings.HasPrefix(name, "join") {
			continue
		}
		room, ok, known := roomOfEvent(name, args)
		if !ok || !known || slices.Contains(out, room) {
			continue
		}
		ctx, cancel := context.WithTimeout(c.srv.ctx, c.srv.cfg.AuthTimeout)
		err = c.srv.cfg.Authorizer.AuthorizeJoin(ctx, c.principal, room)
		cancel()
		if err != nil {
			continue
		}
		out = append(out, room)
	}
	return out
}

// handled passes an event to the Config.Events handler and acks its answer.
func (c *conn) handled(p sio.Packet, h EventHandler, name string, args []json.RawMessage) {
	c.handledAny = true
	ctx, cancel := context.WithTimeout(c.srv.ctx, c.srv.cfg.AuthTimeout)
	res, err := h.HandleEvent(ctx, connPeer{c}, name, args)
	cancel()
	if err != nil {
		code := engine.CodeOf(err)
		if code == engine.ErrInternal {
			c.logAt(zerolog.ErrorLevel).Err(err).Str("event", name).Msg("client event")
		}
		c.answer(p, code)
		return
	}
	if !p.HasID {
		return
	}
	if len(res) == 0 {
		res = json.RawMessage(`{"ok":true}`)
	}
	c.send(textFrame(sio.AppendAck(nil, p.ID, res)))
}

// join authorises and performs a client join.
func (c *conn) join(p sio.Packet, room Room) {
	ctx, cancel := context.WithTimeout(c.srv.ctx, c.srv.cfg.AuthTimeout)
	err := c.srv.cfg.Authorizer.AuthorizeJoin(ctx, c.principal, room)
	cancel()
	if err != nil {
		code := engine.CodeOf(err)
		if code == engine.ErrInternal {
			c.logAt(zerolog.ErrorLevel).Err(err).Str("room", room.String()).Msg("authorize join")
		}
		c.answer(p, code)
		return
	}
	var after func(int64) []byte
	if p.HasID {
		after = func(last int64) []byte {
			return textFrame(sio.AppendAck(nil, p.ID, json.RawMessage(`{"ok":true,"seq":`+strconv.FormatInt(last, 10)+`}`)))
		}
	}
	switch err := c.srv.hub.join(c, []Room{room}, nil, after, c.srv.cfg.MaxRooms); err {
	case nil:
	case errTooManyRooms:
		c.answer(p, engine.ErrValidation)
	default: // detached: the socket is closing
	}
}

// answer acks p, if the client asked: {"ok":true} for an empty code, else {"error":code}.
func (c *conn) answer(p sio.Packet, code engine.Code) {
	if !p.HasID {
		return
	}
	body := `{"ok":true}`
	if code != "" {
		body = `{"error":` + string(sio.AppendString(nil, string(code))) + `}`
	}
	c.send(textFrame(sio.AppendAck(nil, p.ID, json.RawMessage(body))))
}

// ticketArg reads a ticket id argument: a JSON number or decimal string, positive.
func ticketArg(args []json.RawMessage) (int64, bool) {
	if len(args) == 0 {
		return 0, false
	}
	s := jsonString(args[0])
	if s == "" {
		s = string(bytes.TrimSpace(args[0]))
	}
	return parseID(s)
}
