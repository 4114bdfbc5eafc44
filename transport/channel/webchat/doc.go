// Package webchat is the web chat channel: a customer-side WebSocket endpoint (on
// gobwas/ws) and a small embeddable widget, so that a website's visitors chat with
// the attendants of a "socket" connection.
//
// # Pieces
//
//   - Server (New) is an http.Handler mounted at Config.Path ("/webchat/"):
//     GET ws?c=<connection id>[&v=<visitor token>] upgrades to the widget's socket,
//     GET widget.js serves the widget (vanilla JS, pt-BR by default, en and es from
//     the page's lang or navigator.language), GET demo?c=<id>[&lang=en] serves a page
//     that embeds it. Embed snippet:
//     <script src="https://HOST/webchat/widget.js" data-connection="ID" async></script>
//   - Channel (NewChannel, or Server.NewChannel as an engine.ChannelFactory) is the
//     engine.Channel the connection actor owns. Start makes the connection's visitors
//     welcome; until then (and after Stop) a widget gets ERR_WAPP_NOT_INITIALIZED and
//     close 4004.
//   - History is what the server supplies so that a returning visitor sees the
//     conversation so far (and attendant messages sent while it was away).
//
// # Visitors
//
// A visitor is identified by a signed token ("<visitorId>.<hmac>", Config.Secret,
// valid for one connection) that the server issues on a first connect and the
// widget keeps in localStorage, so a reload continues the same conversation. Its
// contact number is "webchat:<visitorId>"; its name comes from an optional hello.
//
// # Protocol
//
// JSON text frames, one object per websocket message.
//
// Client → server:
//
//	{"type":"hello","name":"Ana","email":"ana@example.com"}  both optional; sent after every welcome
//	{"type":"message","id":"<client id>","body":"Olá","seq":7} id: 1-64 of [A-Za-z0-9_-], unique per visitor; seq optional
//	{"type":"read","ids":["wc-out:42", …]}                    attendant messages displayed (≤ 100)
//	{"type":"resume","seq":5}                             after a welcome: the seq of the oldest pending message, or of the next
//	{"type":"ping"}
//	{"type":"proof","nonce":"1z9"}                         answers the welcome's challenge (Config.ProofOfWorkBits)
//	{"type":"call.join","id":"<ref>","token":"call1.…"}    joins a video call as its customer (Config.Calls)
//	{"type":"call.signal","id":"<ref>","signal":{…}}        a call signal, as call.ParseSignal reads it
//
// Server → client:
//
//	{"type":"welcome","visitor":"<token>","timeZone":"America/Cuiaba","history":[{"id":…,"body":…,"fromMe":…,"at":…,"media":…}, …],"challenge":{"seed":"…","bits":16}}
//	{"type":"message","id":"wc-out:42","body":"Oi!","fromMe":true,"at":"2026-11-22T13:04:05.123Z","media":{"type":"image","url":…,"name":…}}
//	{"type":"ack","id":"<client id>"}
//	{"type":"error","code":"ERR_…","id":"<client id, when about a message>","fields":{…},"limit":"newVisitor","retryAfter":42}
//	{"type":"error","code":"ERR_OUT_OF_ORDER","id":"<client id>","retryAfter":3,"expected":6}
//	{"type":"pong"}
//	{"type":"call.joined","id":"<ref>","callId":…,"role":"customer","iceServers":[…]}
//	{"type":"call.ack","id":"<ref>"}
//	{"type":"call","call":{"callId":…,"type":…,"from":"attendant",…}}
//
// The welcome is always the first frame. fromMe has Atende's meaning: true for what
// the business sent (an attendant), false for the visitor's own messages (history,
// and echoes to the visitor's other tabs on the same node: see Tabs). Message ids: the visitor's messages keep
// their client id; the business's are "wc-out:<messageId>". "at" is RFC 3339, UTC;
// the widget shows it as HH:mm on a 24-hour clock in the welcome's timeZone, the
// tenant's (engine.QueueTimeZone), so visitor and attendants read the same times.
//
// Delivery: a visitor message becomes an engine.InboundMessage with ProviderID
// "wc:<visitorId>:<client id>"; the ack is sent only after the sink's Inbound
// returned nil (the message is durable). Until acked, the widget keeps the message
// (across reloads) and sends it again after every welcome; the sink de-duplicates on
// ProviderID, so a resend is harmless. An error frame with the message's id says
// why it was not taken: ERR_TOO_MANY_ATTEMPTS, ERR_OUT_OF_ORDER and
// ERR_UNAVAILABLE (retry later, after retryAfter when given), ERR_VALIDATION and
// ERR_BODY_TOO_LARGE (final). ERR_UNAVAILABLE always carries retryAfter: the node
// sheds load (Config.Admission found no place for the message within its wait) or
// the sink did not answer in time; nothing was lost, the widget resends. A read frame becomes a Receipt with AckRead for each
// id the socket was shown and had not reported.
//
// Order: a message's optional seq (1 to MaxSeq, a JSON integer) is the visitor's
// own number of it, in the order typed. The server records a visitor's numbered
// messages in that order: a resend of a number it took is acknowledged without
// reaching the sink again, and one ahead of the next expected number is refused
// with ERR_OUT_OF_ORDER ("retryAfter", "expected") until the missing ones come or
// Config.SeqGapWait passed; a resume frame tells where a visitor's numbers start
// again after a welcome. order.go has the whole rule. The widget sends its
// pending messages one at a time, oldest first, within the rates below.
//
// Strictness: frames over Config.MaxFrameSize (16 KiB) get ERR_BODY_TOO_LARGE and
// close 1009; invalid UTF-8 closes 1007; binary frames close 1003. Anything but one
// JSON object of the documented keys — case-sensitive, no duplicates, strings only
// (read's ids a list of them, call.signal's signal an object) — is ERR_INVALID_JSON;
// unknown types, keys of another type, empty bodies, control characters (bodies may
// hold \n and \t) and bodies over 4096 characters are
// ERR_VALIDATION or ERR_BODY_TOO_LARGE. Rates: 10 messages/s per visitor (burst 20)
// and 20 frames/s per socket (burst 40) — beyond, ERR_TOO_MANY_ATTEMPTS with
// "limit":"rate" and "retryAfter" (whole seconds until a token is back); after 10
// refused frames in a row the socket is closed with 1008. See errors.go for every
// close code.
//
// # Video calls
//
// With Config.Calls, a socket is also a party of the video call relay (package
// call), as a gateway socket is: a visitor's call page (opened from a call link in
// the widget, docs/calls.md) sends call.join with the link's customer token and then
// its signals; the relay's frames for it come as "call" frames, wrapping what the
// gateway's "call" event carries. call.Relay.JoinCustomer verifies the token; the
// socket adds that the call is of its connection's tenant (ERR_NOT_FOUND otherwise)
// and of the ticket of its visitor's conversation (Config.CallTicket;
// ERR_NO_PERMISSION otherwise). Answers and refusals repeat the request's id. A
// socket that ends leaves its call (the attendant is told "gone"). In a cluster the
// relay's bus carries the signals between nodes, so Calls must be the node's relay.
//
// # Limits under attack
//
// Every handshake passes Config.Gate (package netlimit) before the upgrade: beyond
// the open sockets or new sockets per second allowed to one client address it gets
// HTTP 429 {"error":"ERR_TOO_MANY_ATTEMPTS"}, beyond the node's 503
// {"error":"ERR_UNAVAILABLE"}, both with Retry-After. New visitors are limited per
// client address and per connection (Config.NewVisitorRate,
// NewVisitorsPerConnection): a visitor welcomed without history (no open
// conversation) whose first message would start one beyond either limit gets
// ERR_TOO_MANY_ATTEMPTS with "limit":"newVisitor" and "retryAfter" in seconds;
// nothing reaches the sink, and the widget tells the visitor when to try again,
// keeping the message to resend then. Counts are this Server's, or with
// Config.SharedNewVisitorsByAddress and …ByConnection a shared one (Redis in a
// cluster; docs/security.md).
//
// With Config.ProofOfWorkBits set, the welcome of such a visitor also carries
// "challenge":{"seed","bits"}: before its first message the widget sends
// {"type":"proof","nonce"} such that SHA-256(seed ":" nonce) starts with bits zero
// bits. A first message before that gets ERR_TOO_MANY_ATTEMPTS with "limit":"proof";
// a wrong nonce, ERR_VALIDATION on "nonce". The proof is checked before the
// new-visitor limits, so an unsolved flood spends none of them.
//
// # Cluster
//
// With Config.Cluster set (cluster mode), every node accepts the visitors of every
// web chat connection, wherever the connection's actor — the owner of its Channel —
// runs: a visitor's messages and read receipts go to Cluster.Endpoint's sink (the
// actor, through the cluster; acknowledged only once it returned nil), and
// Channel.Send publishes each attendant message with Cluster.Publish; every node's
// Server.Deliver hands it to the visitor's sockets it holds. Deliveries cross the
// bus as JSON (MarshalDelivery, UnmarshalDelivery: strict, fuzzed). Delivery is at
// most once, as on one node; a visitor that missed a message gets it with the
// history of its next welcome.
//
// # Tabs
//
// A visitor's tabs share its token (localStorage), so they are tabs of one browser,
// and their sockets may be on different nodes. Each tab shows the visitor's messages
// typed in the others: the node echoes an acknowledged message to the visitor's
// other sockets it holds, and the widget whose message was acknowledged posts it
// ({id, body, at}) on a BroadcastChannel named after the connection, which the other
// tabs show. Nodes do not publish the visitor's messages to each other: that would
// cost every node a decoding for every visitor message, whether the visitor has a
// second tab or not. A browser without BroadcastChannel shows the other tabs'
// messages with the history of the next welcome. The widget shows each id once, so
// a message heard both ways appears once.
//
// # Concurrency
//
// Each socket is a wsconn.Conn (the websocket core shared with the gateway) with this
// package's protocol as its handler: one reader goroutine (welcome, then frames, one
// at a time: it waits on the sink) and one writer goroutine (the only writer to the
// socket, which also pings every PingInterval), both started through a
// goroutine.Group that refuses new goroutines once Shutdown began. The
// outbound queue is bounded (Config.QueueSize); a socket that cannot keep up is
// closed with 4008. Sink and History calls come from socket goroutines, concurrently
// for different sockets, each bounded by a timeout and cancelled by Stop. Channel
// methods and Server methods are safe for concurrent use; Send never blocks on a
// socket.
package webchat
