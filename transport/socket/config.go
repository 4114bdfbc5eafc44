package socket

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"atende/transport/netlimit"
)

// Config configures NewServer. Every zero value means the documented default.
type Config struct {
	// Authenticator turns the handshake token into a Principal. Required.
	Authenticator Authenticator
	// Authorizer decides joinChatBox / joinTickets / joinNotification. Required.
	Authorizer Authorizer
	// Hub fans events out to the sockets. Nil: NewServer builds one with
	// NewHub(HubConfig{Logger: Logger}) (memory backlog, default sizes).
	Hub *Hub
	// Events serves the client events the gateway does not know itself (call
	// signalling). Nil: those answer ERR_VALIDATION like any unknown event.
	Events EventHandler
	// Logger receives the gateway's logs; child loggers add conn_id, user_id and
	// tenant. Zero value: logs nothing.
	Logger zerolog.Logger

	// Path is where ServeHTTP answers. Zero: "/socket.io/" (socket.io-client's default).
	Path string
	// PingInterval is how often the server sends the Engine.IO ping "2", and
	// PingTimeout how long the client then has to answer "3"; both are announced in
	// the open packet. Zero: 18 s (spec section 9) and 20 s.
	PingInterval time.Duration
	PingTimeout  time.Duration
	// MaxPayload bounds one inbound websocket message (all fragments); a bigger one
	// closes the connection with 1009. Announced as maxPayload. Zero: 1,000,000 bytes.
	MaxPayload int64
	// QueueSize bounds each socket's outbound queue, in frames. A socket whose queue
	// is full when a frame arrives is disconnected with CloseSlowConsumer. Zero: 1,024 (2 s of a busy supervisor's events at 500 events/s).
	QueueSize int
	// ConnectTimeout bounds the time from the open packet to the client's CONNECT.
	// Zero: 45 s (socket.io's connectTimeout).
	ConnectTimeout time.Duration
	// WriteTimeout bounds each write to a socket; a socket that takes longer is
	// closed. Zero: 10 s.
	WriteTimeout time.Duration
	// AuthTimeout bounds each Authenticate and AuthorizeJoin call. The socket's reader
	// waits on them, so keep it well under PingTimeout. Zero: 5 s.
	AuthTimeout time.Duration
	// MaxRooms bounds the rooms a socket joins by client events (its company and
	// user rooms are not counted); a join beyond it answers ERR_VALIDATION. Zero: 64.
	MaxRooms int
	// MaxConnections bounds open sockets; beyond it handshakes get HTTP 503.
	// Zero: no bound.
	MaxConnections int
	// Gate admits each handshake before the upgrade: caps on open sockets per client
	// address (HTTP 429) and in total (503), and rates of new sockets, each refusal
	// with Retry-After. A node shares one Gate between its websocket endpoints or
	// gives each its own. Nil: only MaxConnections applies.
	Gate *netlimit.Gate
	// ClientAddr is the client address a handshake is counted under (behind a
	// trusted reverse proxy, the address it forwards). Nil: the connection's
	// remote address.
	ClientAddr func(r *http.Request) string
	// CheckOrigin vets the handshake's Origin; false answers HTTP 403. Nil: every
	// origin is accepted — sockets authenticate with a bearer token, never a cookie,
	// so a foreign page gains nothing by opening one.
	CheckOrigin func(r *http.Request) bool
}

// withDefaults returns c with zero values replaced by defaults, or an error for
// values that cannot work.
func (c Config) withDefaults() (Config, error) {
	if c.Authenticator == nil {
		return c, errors.New("socket config: Authenticator is required")
	}
	if c.Authorizer == nil {
		return c, errors.New("socket config: Authorizer is required")
	}
	if c.Path == "" {
		c.Path = "/socket.io/"
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.PingInterval, 18*time.Second)
	def(&c.PingTimeout, 20*time.Second)
	def(&c.ConnectTimeout, 45*time.Second)
	def(&c.WriteTimeout, 10*time.Second)
	def(&c.AuthTimeout, 5*time.Second)
	if c.MaxPayload == 0 {
		c.MaxPayload = 1_000_000
	}
	if c.QueueSize == 0 {
		c.QueueSize = 1024
	}
	if c.MaxRooms == 0 {
		c.MaxRooms = 64
	}
	for name, d := range map[string]time.Duration{
		"PingInterval": c.PingInterval, "PingTimeout": c.PingTimeout, "ConnectTimeout": c.ConnectTimeout,
		"WriteTimeout": c.WriteTimeout, "AuthTimeout": c.AuthTimeout,
	} {
		if d < time.Millisecond {
			return c, fmt.Errorf("socket config: %s %s is below 1ms", name, d)
		}
	}
	if c.MaxPayload < 64 {
		return c, fmt.Errorf("socket config: MaxPayload %d is below 64 bytes", c.MaxPayload)
	}
	if c.QueueSize < 4 {
		return c, fmt.Errorf("socket config: QueueSize %d is below 4", c.QueueSize)
	}
	if c.MaxRooms < 0 || c.MaxConnections < 0 {
		return c, fmt.Errorf("socket config: negative MaxRooms %d or MaxConnections %d", c.MaxRooms, c.MaxConnections)
	}
	return c, nil
}
