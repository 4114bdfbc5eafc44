package whatsapp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"
	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/store"
	waLog "go.mau.fi/whatsmeow/util/log"

	"atende/engine"
)

// SettingGetter reads a tenant setting (engine.SettingStore satisfies it).
type SettingGetter interface {
	Get(ctx context.Context, companyID engine.ID, key string) (engine.Setting, error)
}

// DefaultCallRejectMessage is what a caller hears back when the tenant does not accept
// calls (pt-BR, the product's default language; Config.CallRejectMessage overrides it).
const DefaultCallRejectMessage = "As chamadas de voz e vídeo não são aceitas neste número. Por favor, envie uma mensagem de texto."

// Config configures a Factory.
type Config struct {
	Devices  *Devices          // required
	Media    engine.MediaStore // where inbound media is stored and outbound media read
	Settings SettingGetter     // the acceptCalls setting; nil accepts every call
	// NewClient builds the client of a device; nil builds a real whatsmeow client.
	NewClient NewClientFunc
	// QueueSize bounds the events waiting for the sink per connection (default 256).
	QueueSize int
	// StallAfter is how long keepalives may fail before the connection is STALLED
	// (default 90 s; whatsmeow itself forces a reconnect after 3 min).
	StallAfter time.Duration
	// MaxMediaBytes caps a media file in either direction (default 100 MiB, WhatsApp's
	// document limit).
	MaxMediaBytes     int64
	CallRejectMessage string // default DefaultCallRejectMessage
	// Endpoint points real clients at another WhatsApp Web server (tests: fakewa's
	// wire-level fake); nil is WhatsApp itself.
	Endpoint *Endpoint
	// Logger receives the channel's logs (and whatsmeow's, under module=whatsmeow);
	// zero is a disabled logger.
	Logger zerolog.Logger
}

// Factory builds the Channel of each WhatsApp connection.
type Factory struct {
	cfg Config // static after NewFactory
}

// NewFactory checks cfg and fills its defaults.
func NewFactory(cfg Config) (*Factory, error) {
	if cfg.Devices == nil {
		return nil, errors.New("whatsapp: Config.Devices is required")
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 256
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = 90 * time.Second
	}
	if cfg.MaxMediaBytes <= 0 {
		cfg.MaxMediaBytes = 100 << 20
	}
	if cfg.CallRejectMessage == "" {
		cfg.CallRejectMessage = DefaultCallRejectMessage
	}
	return &Factory{cfg: cfg}, nil
}

// NewChannel builds the channel of a WhatsApp connection (not started).
func (f *Factory) NewChannel(conn engine.Connection) (engine.Channel, error) {
	if conn.ID <= 0 {
		return nil, errors.New("whatsapp: connection without id")
	}
	if conn.Channel != engine.ChannelWhatsApp {
		return nil, fmt.Errorf("whatsapp: connection %d is a %q connection", conn.ID, conn.Channel)
	}
	return &Channel{conn: conn, f: f, log: f.cfg.Logger.With().Int64("conn_id", int64(conn.ID)).Str("channel", "whatsapp").Logger()}, nil
}

func (f *Factory) newClient(dev *store.Device) (Client, error) {
	log := waLog.Zerolog(f.cfg.Logger.With().Str("module", "whatsmeow").Logger().Level(zerolog.WarnLevel))
	if f.cfg.NewClient != nil {
		return f.cfg.NewClient(dev, log)
	}
	// whatsmeow reconnects by itself (EnableAutoReconnect, on by default): after a drop
	// it waits 2 s × the number of failed attempts so far before each new attempt.
	// A paired device whose first connection fails on the network (WhatsApp or our
	// link down at boot) keeps trying in the background (OPENING) instead of failing
	// Start; an unpaired one fails Start, so the connection shows DISCONNECTED.
	cli := whatsmeow.NewClient(dev, log)
	cli.EnableAutoReconnect = true
	cli.InitialAutoReconnect = dev.ID != nil
	if e := f.cfg.Endpoint; e != nil {
		cli.SetWebsocketHTTPClient(e.client)
		cli.SetPreLoginHTTPClient(e.client)
	}
	return cli, nil
}

// Endpoint is a WhatsApp Web server other than WhatsApp's (for tests).
type Endpoint struct {
	client *http.Client // static after NewEndpoint
}

// NewEndpoint makes every websocket of the clients dial addr (host:port) and trust
// the PEM certificates in caPEM for web.whatsapp.com; certKey replaces the noise
// certificate root key the handshake checks the server's chain against. The root key
// is a process-wide variable of whatsmeow (WACertPubKey): once set, this process
// trusts only that server.
func NewEndpoint(addr string, caPEM []byte, certKey [32]byte) (*Endpoint, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("whatsapp endpoint %q: %w", addr, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("whatsapp endpoint: no certificate in the CA file")
	}
	whatsmeow.WACertPubKey = certKey
	var d net.Dialer
	return &Endpoint{client: &http.Client{Transport: &http.Transport{
		DialContext:     func(ctx context.Context, _, _ string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) },
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "web.whatsapp.com", MinVersion: tls.VersionTLS12},
	}}}, nil
}
