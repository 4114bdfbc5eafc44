package waba

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/channel/cloud"
	"atende/transport/channel/meta"
	"atende/transport/jsonapi"
)

// Config configures the WABA adapter. Zero values are documented per field.
type Config struct {
	// GraphURL is the Graph API's base URL; "" = https://graph.facebook.com. Tests
	// point it at a fake.
	GraphURL string
	// GraphVersion is the API version path segment; "" = meta.DefaultGraphVersion.
	GraphVersion string
	// AppSecret is the Meta app's secret: the key of X-Hub-Signature-256. Empty
	// refuses every web-hook delivery (nothing can be verified).
	AppSecret string
	// VerifyToken answers the subscription handshake; empty refuses it.
	VerifyToken string
	// AppID is the Meta app's id: with AppSecret, the client of the embedded signup's
	// code exchange. 0 refuses POST /wacloudapi/embedded.
	AppID int64
	// ConfigID is the embedded signup configuration Meta issued for the app (FB.login
	// config_id), handed to the browser; "" leaves embedded signup disabled there.
	ConfigID string
	// MaxBody caps a web-hook body; 0 = meta.DefaultMaxBody (1 MiB).
	MaxBody int64
	// MaxMedia caps one downloaded media file; 0 = 100 MiB (the store applies its
	// own per-type limits on top).
	MaxMedia int64
	// HTTP is the client for the Graph API; nil = one with a 30 s timeout.
	HTTP *http.Client
	// CallTimeout bounds the work of one web-hook delivery; 0 = 20 s.
	CallTimeout time.Duration
}

// Actors is what the adapter needs of the connection actors (actors.Connections).
type Actors = cloud.Actors

// Tickets finds what POST /waba/sendtemplatemessage/ needs of a ticket: its
// connection and its contact's number, once p may send a message on it by the rule
// of engine.AuthorizeTicket (ERR_NO_TICKET_FOUND, ERR_NO_PERMISSION).
type Tickets interface {
	TicketTarget(ctx context.Context, p engine.Principal, ticketID engine.ID) (connectionID engine.ID, number string, err error)
}

// Deps are the adapter's collaborators; all required except Tickets (nil disables
// POST /waba/sendtemplatemessage/ with ERR_NO_TICKET_FOUND).
type Deps struct {
	Connections engine.ConnectionStore
	Credentials engine.CredentialStore
	Media       engine.MediaStore
	Actors      Actors
	Tickets     Tickets
	Publisher   jsonapi.Publisher // announces the connections a registration creates; may be nil
	Logger      zerolog.Logger
}

// Service is the WABA adapter: its routes, its web-hook and its channels. Safe for
// concurrent use.
type Service struct {
	// static after New
	cfg   Config
	deps  Deps
	graph *meta.Graph
	log   zerolog.Logger
}

// New validates cfg and deps.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Connections == nil || deps.Credentials == nil || deps.Media == nil || deps.Actors == nil {
		return nil, errors.New("waba: Connections, Credentials, Media and Actors are required")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = meta.DefaultMaxBody
	}
	if cfg.MaxMedia <= 0 {
		cfg.MaxMedia = 100 << 20
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 20 * time.Second
	}
	return &Service{cfg: cfg, deps: deps, graph: meta.NewGraph(cfg.GraphURL, cfg.GraphVersion, cfg.HTTP),
		log: deps.Logger.With().Str("channel", engine.ChannelWABA).Logger()}, nil
}

// Routes registers POST /wacloudapi, POST /wacloudapi/embedded, GET
// /wacloudapi/embedded/config, GET /wabatemplates, POST /waba/sendtemplatemessage/ and
// the web-hook GET and POST /waba/webhook.
func (s *Service) Routes(r meta.Router) {
	r.Authed("POST /wacloudapi", s.register)
	r.Authed("POST /wacloudapi/embedded", s.embedded)
	r.Authed("GET /wacloudapi/embedded/config", s.embeddedConfig)
	r.Authed("GET /wabatemplates", s.templates)
	r.Authed("POST /waba/sendtemplatemessage/", s.sendTemplate)
	r.Public("GET /waba/webhook", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		meta.Handshake(w, r, s.cfg.VerifyToken)
	}))
	r.Public("POST /waba/webhook", http.HandlerFunc(s.webhook))
}

// NewChannel builds the channel of a "waba" connection; it reads its credentials when
// started.
func (s *Service) NewChannel(conn engine.Connection) (engine.Channel, error) {
	if conn.Channel != engine.ChannelWABA {
		return nil, fmt.Errorf("waba: connection %d is %q", conn.ID, conn.Channel)
	}
	return &Channel{svc: s, conn: conn}, nil
}

// webhook verifies, parses and delivers one notification. It answers 200 only once
// every message and status it holds is durable; any failure answers 500 so that Meta
// delivers again (re-deliveries are de-duplicated on the message id).
func (s *Service) webhook(w http.ResponseWriter, r *http.Request) {
	meta.ServeSigned(w, r, meta.SignedHook{Log: s.log, AppSecret: s.cfg.AppSecret, MaxBody: s.cfg.MaxBody, Timeout: s.cfg.CallTimeout},
		parseNotification, s.deliver)
}

func (s *Service) deliver(ctx context.Context, n *notification) error {
	for _, e := range n.Entry {
		for _, c := range e.Changes {
			if c.Field != "messages" && c.Field != "" {
				continue
			}
			if err := s.deliverValue(ctx, &c.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Service) deliverValue(ctx context.Context, v *value) error {
	if len(v.Messages) == 0 && len(v.Statuses) == 0 {
		return nil
	}
	cred, err := s.deps.Credentials.ByExternal(ctx, engine.ProviderWABA, v.Metadata.PhoneNumberID)
	if engine.CodeOf(err) == engine.ErrNotFound {
		// A number this server does not serve (deleted connection): acknowledge, or
		// Meta retries for days.
		s.log.Warn().Str("phone_number_id", v.Metadata.PhoneNumberID).Msg("web-hook for an unknown number dropped")
		return nil
	}
	if err != nil {
		return err
	}
	log := s.log.With().Int64("conn_id", cred.ConnectionID).Logger()
	sink := s.deps.Actors.Sink(cred.ConnectionID)
	for _, in := range v.inbounds() {
		m := in.msg
		if in.media != nil {
			if m.MediaPath, err = s.fetchMedia(ctx, cred, in.media, m.MediaType); err != nil {
				return fmt.Errorf("media of %s: %w", m.ProviderID, err)
			}
			if m.MediaPath == "" { // refused by the store: keep the message, say what it was
				m.DropMedia()
			}
		}
		if err := sink.Inbound(ctx, m); err != nil {
			return fmt.Errorf("inbound %s: %w", m.ProviderID, err)
		}
	}
	for _, st := range v.Statuses {
		if st.ID == "" {
			continue
		}
		ack, ok := ackOf(st.Status)
		if !ok {
			ev := log.Warn().Str("provider_id", st.ID).Str("status", st.Status)
			if len(st.Errors) > 0 {
				ev = ev.Int("error_code", st.Errors[0].Code).Str("error", st.Errors[0].Title)
			}
			ev.Msg("message not delivered by WhatsApp")
			continue
		}
		if err := sink.Receipt(ctx, engine.Receipt{ProviderID: st.ID, Ack: ack}); err != nil {
			return fmt.Errorf("receipt %s: %w", st.ID, err)
		}
	}
	return nil
}

// fetchMedia resolves a media id (GET /{media-id} → url) and stores the file.
func (s *Service) fetchMedia(ctx context.Context, cred engine.ChannelCredentials, md *mediaRef, kind string) (string, error) {
	var info struct {
		URL      string `json:"url"`
		MimeType string `json:"mime_type"`
	}
	if err := s.graph.JSON(ctx, http.MethodGet, "/"+md.ID, nil, cred.Token, nil, &info); err != nil {
		return "", permanentMedia(err)
	}
	if info.URL == "" {
		return "", nil
	}
	body, ctype, err := s.graph.Download(ctx, info.URL, cred.Token, s.cfg.MaxMedia)
	if err != nil {
		return "", permanentMedia(err)
	}
	defer body.Close()
	if ctype == "" {
		ctype = info.MimeType
	}
	// Refused for good: keep the message, without the file.
	return cloud.SaveMedia(ctx, s.deps.Media, cred.CompanyID, body, md.Filename, ctype, func(err error) {
		s.log.Warn().Err(err).Str("media_kind", kind).Msg("inbound media refused by the store")
	})
}

// permanentMedia turns a refusal that no retry will change (the media id expired or
// is unknown: a 4xx other than throttling) into no error and no file — the message is
// kept as text rather than the delivery failing until Meta gives up. Anything else is
// returned, so the web-hook answers 500 and Meta delivers again.
func permanentMedia(err error) error {
	var ge *meta.GraphError
	if errors.As(err, &ge) && ge.Status >= 400 && ge.Status < 500 && !ge.Temporary() {
		return nil
	}
	return err
}
