package telegram

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/goroutine"
	"atende/transport/channel/cloud"
	"atende/transport/channel/meta"
	"atende/transport/jsonapi"
)

// Inbound modes (Config.Mode).
const (
	ModePolling = "polling" // getUpdates long polling, run by the connection's channel
	ModeWebhook = "webhook" // setWebhook to PublicURL/telegram/webhook/{id}
)

// Config configures the Telegram adapter. Zero values are documented per field.
type Config struct {
	// APIURL is the Bot API's base URL; "" = https://api.telegram.org.
	APIURL string
	// Mode is ModePolling or ModeWebhook; "" = ModeWebhook when PublicURL is set,
	// ModePolling otherwise.
	Mode string
	// PublicURL is how Telegram reaches this server (web-hook mode), e.g.
	// https://atende.example.com.
	PublicURL string
	// PollTimeout is getUpdates' long-poll timeout; 0 = 25 s.
	PollTimeout time.Duration
	// RetryDelay is the pause after a failed poll or a failed record; 0 = 2 s.
	RetryDelay time.Duration
	// MaxBody caps a web-hook body; 0 = 1 MiB.
	MaxBody int64
	// MaxMedia caps one downloaded file; 0 = 20 MiB (the Bot API's download limit).
	MaxMedia int64
	// HTTP is the client for the Bot API; nil = one with a timeout of PollTimeout+15 s.
	HTTP *http.Client
	// CallTimeout bounds the work of one web-hook delivery; 0 = 20 s.
	CallTimeout time.Duration
}

// Actors is what the adapter needs of the connection actors (actors.Connections).
type Actors = cloud.Actors

// Deps are the adapter's collaborators, all required.
type Deps = cloud.Deps

// Service is the Telegram adapter: its routes, its web-hook and its channels. Safe for
// concurrent use.
type Service struct {
	// static after New
	cfg  Config
	deps Deps
	http *http.Client
	log  zerolog.Logger

	// Poll loops derive from root and run in loops; Close cancels root, then waits.
	root   context.Context
	cancel context.CancelFunc
	loops  goroutine.Group
}

// New validates cfg and deps.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Connections == nil || deps.Credentials == nil || deps.Media == nil || deps.Actors == nil {
		return nil, errors.New("telegram: Connections, Credentials, Media and Actors are required")
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	cfg.APIURL = strings.TrimRight(cfg.APIURL, "/")
	if cfg.Mode == "" {
		cfg.Mode = ModePolling
		if cfg.PublicURL != "" {
			cfg.Mode = ModeWebhook
		}
	}
	if cfg.Mode != ModePolling && cfg.Mode != ModeWebhook {
		return nil, fmt.Errorf("telegram: mode %q is neither polling nor webhook", cfg.Mode)
	}
	if cfg.Mode == ModeWebhook && cfg.PublicURL == "" {
		return nil, errors.New("telegram: web-hook mode needs PublicURL")
	}
	if cfg.PollTimeout <= 0 {
		cfg.PollTimeout = 25 * time.Second
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = 2 * time.Second
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 1 << 20
	}
	if cfg.MaxMedia <= 0 {
		cfg.MaxMedia = 20 << 20
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 20 * time.Second
	}
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: cfg.PollTimeout + 15*time.Second}
	}
	root, cancel := context.WithCancel(context.Background())
	return &Service{cfg: cfg, deps: deps, http: hc, log: deps.Logger.With().Str("channel", engine.ChannelTelegram).Logger(),
		root: root, cancel: cancel}, nil
}

// Close ends every poll loop of this node and waits for them (or for ctx). Channels
// started afterwards do not poll. Call it at shutdown, after the connection actors
// stopped.
func (s *Service) Close(ctx context.Context) error {
	s.cancel()
	return s.loops.Wait(ctx)
}

func (s *Service) client(token string) *client {
	return &client{base: s.cfg.APIURL, token: token, http: s.http}
}

// Routes registers POST /telegram and the web-hook POST /telegram/webhook/{id}.
func (s *Service) Routes(r meta.Router) {
	r.Authed("POST /telegram", s.create)
	r.Public("POST /telegram/webhook/{id}", http.HandlerFunc(s.webhook))
}

// NewChannel builds the channel of a "telegram" connection.
func (s *Service) NewChannel(conn engine.Connection) (engine.Channel, error) {
	if conn.Channel != engine.ChannelTelegram {
		return nil, fmt.Errorf("telegram: connection %d is %q", conn.ID, conn.Channel)
	}
	return &Channel{svc: s, conn: conn, log: s.log.With().Int64("conn_id", conn.ID).Logger()}, nil
}

// createRequest is POST /telegram.
type createRequest struct {
	Name  string `json:"name"`
	Token string `json:"token"`
}

// create validates a bot token with getMe and creates a "telegram" connection (or
// renews the token of the tenant's connection of that bot). The answer is the
// connection, without the token.
func (s *Service) create(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if !p.Can(engine.ActManageConnections) {
		return engine.E(engine.ErrNoPermission)
	}
	var in createRequest
	if err := meta.DecodeJSON(r, &in); err != nil {
		return err
	}
	in.Token = strings.TrimSpace(in.Token)
	if err := meta.Required(map[string]string{"token": in.Token}); err != nil {
		return err
	}
	// A name the admin typed follows the connection form's rule ('Too Short!', 'Too
	// Long!'); only the bot's own name (no name typed) is fitted by ConnectionName.
	typed := strings.TrimSpace(in.Name)
	if typed != "" {
		v, err := engine.ValidateConnection(engine.ConnectionInput{Name: typed, Channel: engine.ChannelTelegram})
		if err != nil {
			return err
		}
		typed = v.Name
	}
	if strings.ContainsAny(in.Token, "/?#% ") {
		return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"token": engine.MsgInvalidValue}}
	}
	me, err := s.client(in.Token).getMe(r.Context())
	if err != nil {
		return cloud.Interactive(classify("telegram getMe", err))
	}
	var secret [24]byte
	_, _ = rand.Read(secret[:])
	name := typed
	if name == "" {
		name = meta.ConnectionName(me.FirstName, "Telegram", me.Username)
	}
	cred := engine.ChannelCredentials{Provider: engine.ProviderTelegram, ExternalID: itoa(me.ID),
		AccountID: me.Username, Token: in.Token, Secret: hex.EncodeToString(secret[:])}
	conn, err := meta.Upsert(r.Context(), meta.UpsertDeps{Connections: s.deps.Connections, Credentials: s.deps.Credentials,
		Starter: s.deps.Actors, Publisher: s.deps.Publisher, Logger: s.log}, p.CompanyID, cred,
		engine.ConnectionInput{Name: name, Number: "@" + me.Username, Channel: engine.ChannelTelegram})
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, conn)
	return nil
}

// webhook receives one Update for connection {id}. The X-Telegram-Bot-Api-Secret-Token
// header must be the connection's secret (set with setWebhook); anything else is
// refused 401, logged, and nothing is recorded. 200 only once the message is durable.
func (s *Service) webhook(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		http.NotFound(w, r)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.CallTimeout)
	defer cancel()
	cred, err := s.deps.Credentials.Get(ctx, id)
	if err != nil && engine.CodeOf(err) != engine.ErrNotFound {
		s.log.Error().Err(err).Int64("conn_id", id).Msg("web-hook: read credentials")
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	got := r.Header.Get("X-Telegram-Bot-Api-Secret-Token")
	if err != nil || cred.Provider != engine.ProviderTelegram || cred.Secret == "" ||
		subtle.ConstantTimeCompare([]byte(got), []byte(cred.Secret)) != 1 {
		s.log.Warn().Int64("conn_id", id).Str("remote", r.RemoteAddr).Msg("web-hook refused: bad or missing secret token")
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err != nil {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	cloud.Deliver(ctx, w, cloud.Hook{Log: s.log.With().Int64("conn_id", id).Logger(), Bad: "bad update",
		Retry: "web-hook delivery failed: Telegram will retry"}, body, parseUpdate,
		func(ctx context.Context, u *update) error { return s.deliver(ctx, cred, s.deps.Actors.Sink(id), u) })
}

// deliver records one update: its message (media downloaded first) goes to sink.
func (s *Service) deliver(ctx context.Context, cred engine.ChannelCredentials, sink engine.ChannelSink, u *update) error {
	in, media, ok := inboundOf(u.Message)
	if !ok {
		return nil
	}
	if media != nil {
		path, err := s.fetch(ctx, cred, media)
		if err != nil {
			return fmt.Errorf("media of %s: %w", in.ProviderID, err)
		}
		if path == "" {
			in.DropMedia()
		}
		in.MediaPath = path
	}
	return sink.Inbound(ctx, in)
}

// fetch downloads a file (getFile, then /file/bot<token>/<path>) into the media store.
// A file the store refuses for good, or one above the Bot API's download limit,
// gives "" (the message is kept without it).
func (s *Service) fetch(ctx context.Context, cred engine.ChannelCredentials, f *file) (string, error) {
	if f.FileSize > s.cfg.MaxMedia {
		return "", nil
	}
	c := s.client(cred.Token)
	var info struct {
		FilePath string `json:"file_path"`
	}
	if err := c.call(ctx, "getFile", map[string]string{"file_id": f.FileID}, &info); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Code == http.StatusBadRequest {
			return "", nil // "file is too big" and friends: permanent
		}
		return "", err
	}
	body, err := c.download(ctx, info.FilePath, s.cfg.MaxMedia)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Code >= 400 && ae.Code < 500 && ae.Code != http.StatusTooManyRequests {
			return "", nil // the file is gone: keep the message without it
		}
		return "", err
	}
	defer body.Close()
	return cloud.SaveMedia(ctx, s.deps.Media, cred.CompanyID, body, f.FileName, f.MimeType, func(err error) {
		s.log.Warn().Err(err).Int64("conn_id", cred.ConnectionID).Msg("inbound media refused by the store")
	})
}
