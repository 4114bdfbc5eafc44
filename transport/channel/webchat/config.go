package webchat

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/call"
	"atende/transport/ingest"
	"atende/transport/netlimit"
)

// History answers the last messages of a visitor's conversation on a connection,
// for the welcome frame, read from the message read model: the
// messages of the tickets of the contact whose number is visitorNumber
// ("webchat:<visitorId>") on connection connectionID, at most limit, oldest first.
// It must be safe for concurrent use.
type History interface {
	History(ctx context.Context, connectionID engine.ID, visitorNumber string, limit int) ([]HistoryItem, error)
}

// HistoryFunc adapts a function to History.
type HistoryFunc func(ctx context.Context, connectionID engine.ID, visitorNumber string, limit int) ([]HistoryItem, error)

// History calls f.
func (f HistoryFunc) History(ctx context.Context, connectionID engine.ID, visitorNumber string, limit int) ([]HistoryItem, error) {
	return f(ctx, connectionID, visitorNumber, limit)
}

// HistoryItem is one message of a visitor's conversation, as the journal has it.
// Items whose MediaType is not text, image, audio, video or document (whispers,
// actions, call logs, AI drafts) are dropped: the visitor never sees them.
type HistoryItem struct {
	MessageID engine.ID // our id of the message
	// ProviderID is the message's provider id: "wc:<visitorId>:<client id>" for the
	// visitor's, "wc-out:<messageId>" for what Channel.Send delivered; may be "" for a
	// business message not sent yet.
	ProviderID string
	FromMe     bool // sent by the business (engine.Message.FromMe)
	Ack        int  // engine.Ack…: business messages below AckRead may be reported read
	Body       string
	MediaType  string // "" for text
	MediaPath  string // relative to the media folder
	MediaName  string
	At         time.Time
}

// MediaURLFunc turns a stored media file into a URL the widget can load (for example
// media.Store.NamedURL with a TTL of hours).
type MediaURLFunc func(companyID engine.ID, path, name string) (string, error)

// Config configures New. Every zero value means the documented default.
type Config struct {
	// Secret signs visitor tokens (HMAC-SHA256). Required, at least 32 bytes.
	// Changing it makes every visitor a new one (their widgets get fresh tokens).
	Secret []byte
	// History supplies the welcome frame's history. Nil: no history is sent.
	History History
	// ZoneName answers the IANA zone of a tenant (its timeZone setting), which the
	// welcome frame announces so that the widget shows times as the attendants see
	// them. Nil: engine.QueueTimeZone for every tenant.
	ZoneName func(ctx context.Context, companyID engine.ID) string
	// MediaURL links media of attendant messages. Nil: media messages carry their
	// type and name without a link.
	MediaURL MediaURLFunc
	// RoutesHere reports whether this node routes, itself, the messages of the
	// contact with number on connection conn (actors.Node.RoutesHere). New visitors
	// are given ids it answers true for when a few draws find one, so that their
	// messages do not cross the cluster. Nil: any id.
	RoutesHere func(conn engine.ID, number string) bool
	// Logger receives the web chat's logs; child loggers add conn_id and channel.
	// Zero value: logs nothing.
	Logger zerolog.Logger

	// Path is where the Server is mounted, with a trailing slash. Zero: "/webchat/".
	Path string
	// MaxFrameSize bounds one websocket message from a widget, in bytes; a bigger one
	// gets an error frame ERR_BODY_TOO_LARGE and close 1009. Zero: 16 KiB.
	MaxFrameSize int64
	// MaxBodyLength bounds a message body, in characters. Zero: 4096.
	MaxBodyLength int
	// MessageRate and MessageBurst bound the messages of one visitor (all its tabs):
	// a token bucket refilled at MessageRate per second holding MessageBurst. Zero:
	// 10 per second, burst 20.
	MessageRate  float64
	MessageBurst int
	// FrameRate and FrameBurst bound every frame of one socket (pings, reads, hellos
	// included). Zero: 20 per second, burst 40.
	FrameRate  float64
	FrameBurst int
	// MaxStrikes is how many refused frames in a row (malformed, invalid, over a
	// rate) a socket may send before it is closed with 1008. Zero: 10.
	MaxStrikes int
	// SeqGapWait bounds how long a visitor's message numbered ahead of the next
	// expected one (a "seq" gap, order.go) is refused with ERR_OUT_OF_ORDER, from
	// the first such refusal, waiting for the missing ones; after it the message is
	// taken and the missing ones, should they come, are recorded late. Zero: 5 s.
	SeqGapWait time.Duration
	// QueueSize bounds each socket's outbound queue, in frames; a socket whose queue
	// is full is closed with CloseSlowConsumer. Zero: 128.
	QueueSize int
	// PingInterval is how often the server sends a websocket ping; a socket that
	// sends nothing (browsers answer pings by themselves) for PingInterval +
	// PongTimeout is closed with ClosePingTimeout. Zero: 25 s and 20 s.
	PingInterval time.Duration
	PongTimeout  time.Duration
	// IdleTimeout closes a socket whose visitor sent no hello, message or read for
	// that long (CloseIdle); the widget reconnects when its page is visible.
	// Zero: 30 min.
	IdleTimeout time.Duration
	// WriteTimeout bounds each write to a socket. Zero: 10 s.
	WriteTimeout time.Duration
	// SinkTimeout bounds each call to the sink (Inbound, Receipt). Zero: 10 s.
	SinkTimeout time.Duration
	// Admission is the node's admission control of inbound messages (package
	// ingest), shared with the web-hooks: a visitor's message that finds no place
	// within its wait, or whose sink call stalls (ERR_UNAVAILABLE, a timeout), gets
	// the error frame ERR_UNAVAILABLE with "retryAfter" (seconds), and the widget
	// sends it again then. Nil: no bound; a stall still answers "retryAfter".
	Admission *ingest.Limiter
	// HistoryLimit is the limit passed to History; HistoryTimeout bounds the call (the
	// welcome goes out without history when it fails). Zero: 50 and 5 s.
	HistoryLimit   int
	HistoryTimeout time.Duration
	// MaxConnections bounds open sockets; beyond it handshakes get HTTP 503.
	// Zero: no bound.
	MaxConnections int
	// Gate admits each handshake before the upgrade: caps on open sockets per client
	// address (HTTP 429 ERR_TOO_MANY_ATTEMPTS) and in total (503 ERR_UNAVAILABLE),
	// and rates of new sockets, each refusal with Retry-After. Nil: only
	// MaxConnections applies.
	Gate *netlimit.Gate
	// ClientAddr is the client address a handshake and a new visitor are counted
	// under (behind a trusted reverse proxy, the address it forwards). Nil: the
	// connection's remote address.
	ClientAddr func(r *http.Request) string
	// NewVisitorRate bounds the conversations new visitors of one client address
	// start, and NewVisitorsPerConnection those of all addresses on one web chat
	// connection: token buckets. A visitor starts a conversation with its first
	// message on a socket whose welcome had no history (no open conversation); one
	// beyond either limit gets the error frame ERR_TOO_MANY_ATTEMPTS with
	// "limit":"newVisitor" and "retryAfter" (seconds), and nothing is recorded.
	// Zero: 10 per minute, burst 10, per address; 120 per minute, burst 120, per
	// connection. A negative PerSecond lifts the limit.
	NewVisitorRate           netlimit.Rate
	NewVisitorsPerConnection netlimit.Rate
	// SharedNewVisitorsByAddress and SharedNewVisitorsByConnection, when set, count
	// the new-visitor limits instead of this Server's memory: in a cluster, one count
	// kept in Redis for every node. They must be shaped like NewVisitorRate and
	// NewVisitorsPerConnection. When one fails (Redis unreachable), this Server's own
	// count decides, and the failure is logged. Nil: the count is this Server's.
	SharedNewVisitorsByAddress    Limiter
	SharedNewVisitorsByConnection Limiter
	// ProofOfWorkBits, when above 0, makes a new visitor (welcomed without history)
	// solve a proof of work before its first message: the welcome carries
	// "challenge":{"seed","bits"}, and the widget answers {"type":"proof","nonce"}
	// such that SHA-256(seed ":" nonce) starts with that many zero bits. A first
	// message without it gets ERR_TOO_MANY_ATTEMPTS with "limit":"proof". Each bit
	// doubles the visitor's work: 16 is about 65,000 hashes. Zero: no proof asked.
	// At most 28.
	ProofOfWorkBits int
	// MaxSocketsPerVisitor bounds one visitor's open sockets (tabs); one more gets
	// ERR_TOO_MANY_ATTEMPTS and CloseTooManySockets. Zero: 8.
	MaxSocketsPerVisitor int
	// CheckOrigin vets the handshake's Origin; false answers HTTP 403. Nil: every
	// origin is accepted — the widget is embedded on the customer's own sites.
	CheckOrigin func(r *http.Request) bool
	// Now is the clock of rate limits and message times. Nil: time.Now.
	Now func() time.Time
	// Cluster, when set, makes this Server serve the visitors of every web chat
	// connection, wherever its channel runs (see Cluster). Nil: only the visitors of
	// the connections whose Channel was started on this Server.
	Cluster Cluster
	// Calls, when set, lets a visitor's call page signal a video call over its web
	// chat socket (call.join, call.signal; docs/calls.md): each socket that joins is
	// a party of this node's call relay, as a gateway socket is. In a cluster it must
	// be the relay subscribed to the bus, so a party here hears the other node's.
	// Nil: call frames get ERR_UNAVAILABLE.
	Calls *call.Relay
	// CallTicket answers the ticket of a visitor's conversation on a web chat
	// connection (0: none), from its contact number ("webchat:<visitorId>"). A
	// visitor joins only a call whose token names that ticket, so no visitor joins
	// another's call. Required with Calls; bounded by SinkTimeout.
	CallTicket func(ctx context.Context, connectionID engine.ID, visitorNumber string) (engine.ID, error)
}

// Limiter is a token bucket per key shared beyond this Server (Redis's
// redisstate.TokenBuckets): Take takes a token from key's bucket, or answers false
// and how long until there is one.
type Limiter interface {
	Take(ctx context.Context, key string) (ok bool, wait time.Duration, err error)
}

// Defaults of the new-visitor limits.
var (
	DefaultNewVisitorRate           = netlimit.PerMinute(10, 10)
	DefaultNewVisitorsPerConnection = netlimit.PerMinute(120, 120)
)

// withDefaults returns c with zero values replaced by defaults, or an error for
// values that cannot work.
func (c Config) withDefaults() (Config, error) {
	if len(c.Secret) < 32 {
		return c, errors.New("webchat config: Secret must be at least 32 bytes")
	}
	c.Secret = append([]byte(nil), c.Secret...)
	if c.Path == "" {
		c.Path = "/webchat/"
	}
	if !strings.HasPrefix(c.Path, "/") || !strings.HasSuffix(c.Path, "/") {
		return c, fmt.Errorf("webchat config: Path %q must start and end with a slash", c.Path)
	}
	defInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	defRate := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	if c.MaxFrameSize == 0 {
		c.MaxFrameSize = DefaultMaxFrameSize
	}
	defInt(&c.MaxBodyLength, DefaultMaxBodyLength)
	defRate(&c.MessageRate, 10)
	defInt(&c.MessageBurst, 20)
	defRate(&c.FrameRate, 20)
	defInt(&c.FrameBurst, 40)
	defInt(&c.MaxStrikes, 10)
	defInt(&c.QueueSize, 128)
	defDur(&c.SeqGapWait, 5*time.Second)
	defDur(&c.PingInterval, 25*time.Second)
	defDur(&c.PongTimeout, 20*time.Second)
	defDur(&c.IdleTimeout, 30*time.Minute)
	defDur(&c.WriteTimeout, 10*time.Second)
	defDur(&c.SinkTimeout, 10*time.Second)
	defInt(&c.HistoryLimit, 50)
	defDur(&c.HistoryTimeout, 5*time.Second)
	defInt(&c.MaxSocketsPerVisitor, 8)
	if c.NewVisitorRate == (netlimit.Rate{}) {
		c.NewVisitorRate = DefaultNewVisitorRate
	}
	if c.NewVisitorsPerConnection == (netlimit.Rate{}) {
		c.NewVisitorsPerConnection = DefaultNewVisitorsPerConnection
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	for name, d := range map[string]time.Duration{
		"PingInterval": c.PingInterval, "PongTimeout": c.PongTimeout, "IdleTimeout": c.IdleTimeout,
		"WriteTimeout": c.WriteTimeout, "SinkTimeout": c.SinkTimeout, "HistoryTimeout": c.HistoryTimeout,
		"SeqGapWait": c.SeqGapWait,
	} {
		if d < time.Millisecond {
			return c, fmt.Errorf("webchat config: %s %s is below 1ms", name, d)
		}
	}
	switch {
	case c.Calls != nil && c.CallTicket == nil:
		return c, errors.New("webchat config: Calls needs CallTicket")
	case c.MaxFrameSize < 256:
		return c, fmt.Errorf("webchat config: MaxFrameSize %d is below 256 bytes", c.MaxFrameSize)
	case c.MaxBodyLength < 1:
		return c, fmt.Errorf("webchat config: MaxBodyLength %d is below 1", c.MaxBodyLength)
	case c.MessageRate < 0 || c.FrameRate < 0 || c.MessageBurst < 1 || c.FrameBurst < 1:
		return c, errors.New("webchat config: rates must be positive and bursts at least 1")
	case c.ProofOfWorkBits < 0 || c.ProofOfWorkBits > MaxProofOfWorkBits:
		return c, fmt.Errorf("webchat config: ProofOfWorkBits %d is outside 0..%d", c.ProofOfWorkBits, MaxProofOfWorkBits)
	case c.MaxStrikes < 1 || c.QueueSize < 4 || c.HistoryLimit < 0 || c.MaxConnections < 0 || c.MaxSocketsPerVisitor < 1:
		return c, errors.New("webchat config: MaxStrikes ≥ 1, QueueSize ≥ 4, MaxSocketsPerVisitor ≥ 1, no negative limits")
	}
	return c, nil
}
