package meta

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/channel/cloud"
	"atende/transport/jsonapi"
)

// Config configures the Facebook and Instagram adapter. Zero values per field.
type Config struct {
	// GraphURL is the Graph API's base URL; "" = https://graph.facebook.com.
	GraphURL string
	// GraphVersion is the API version path segment; "" = DefaultGraphVersion.
	GraphVersion string
	// AppID is the Meta app's id: echoes of messages this app sent are skipped (the
	// send recorded them). 0 records every echo.
	AppID int64
	// AppSecret keys X-Hub-Signature-256; empty refuses every web-hook delivery.
	AppSecret string
	// VerifyToken answers the subscription handshake; empty refuses it.
	VerifyToken string
	// MaxBody caps a web-hook body; 0 = DefaultMaxBody.
	MaxBody int64
	// MaxMedia caps one downloaded attachment; 0 = 25 MiB (Messenger's limit).
	MaxMedia int64
	// HTTP is the client for the Graph API; nil = one with a 30 s timeout.
	HTTP *http.Client
	// CallTimeout bounds the work of one web-hook delivery; 0 = 20 s.
	CallTimeout time.Duration
	// ProfileTimeout bounds one customer profile lookup, inside CallTimeout; 0 = 2 s.
	ProfileTimeout time.Duration
	// ProfileRetry is how long a failed profile lookup is remembered (the customer
	// goes without a name meanwhile) before it is tried again; 0 = 1 min.
	ProfileRetry time.Duration
}

// Actors is what the adapter needs of the connection actors (actors.Connections).
type Actors = cloud.Actors

// Deps are the adapter's collaborators, all required.
type Deps = cloud.Deps

// Service is the Facebook (Messenger) and Instagram adapter. Safe for concurrent use.
type Service struct {
	// static after New
	cfg   Config
	deps  Deps
	graph *Graph
	log   zerolog.Logger

	profiles profiles // customers' names, cached
}

// New validates cfg and deps.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Connections == nil || deps.Credentials == nil || deps.Media == nil || deps.Actors == nil {
		return nil, errors.New("meta: Connections, Credentials, Media and Actors are required")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxMedia <= 0 {
		cfg.MaxMedia = 25 << 20
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 20 * time.Second
	}
	if cfg.ProfileTimeout <= 0 {
		cfg.ProfileTimeout = 2 * time.Second
	}
	if cfg.ProfileRetry <= 0 {
		cfg.ProfileRetry = time.Minute
	}
	return &Service{cfg: cfg, deps: deps, graph: NewGraph(cfg.GraphURL, cfg.GraphVersion, cfg.HTTP),
		log: deps.Logger.With().Str("component", "meta").Logger()}, nil
}

// Routes registers POST /facebook, POST /hubregister/ and the web-hook GET and POST
// /meta/webhook.
func (s *Service) Routes(r Router) {
	r.Authed("POST /facebook", s.connectPages)
	r.Authed("POST /hubregister/", s.hubRegister)
	r.Authed("POST /hubregister", s.hubRegister)
	r.Public("GET /meta/webhook", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Handshake(w, r, s.cfg.VerifyToken)
	}))
	r.Public("POST /meta/webhook", http.HandlerFunc(s.webhook))
}

// NewChannel builds the channel of a "facebook" or "instagram" connection.
func (s *Service) NewChannel(conn engine.Connection) (engine.Channel, error) {
	if conn.Channel != engine.ChannelFacebook && conn.Channel != engine.ChannelInstagram {
		return nil, fmt.Errorf("meta: connection %d is %q", conn.ID, conn.Channel)
	}
	return &Channel{svc: s, conn: conn}, nil
}

// facebookRequest is POST /facebook (spec section 7).
type facebookRequest struct {
	UserID       string `json:"facebookUserId"`
	UserToken    string `json:"facebookUserToken"`
	AddInstagram bool   `json:"addInstagram"`
}

type page struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	AccessToken string `json:"access_token"`
	Instagram   *struct {
		ID string `json:"id"`
	} `json:"instagram_business_account"`
}

// connectPages lists the pages the user administers (GET /{user-id}/accounts) and
// makes one "facebook" connection per page and, with addInstagram, one "instagram"
// connection per linked Instagram business account; each keeps its page token in
// persistence/credentials. Pages already connected get their token renewed. The
// answer is {"connections": [...]}, without tokens.
func (s *Service) connectPages(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if !p.Can(engine.ActManageConnections) {
		return engine.E(engine.ErrNoPermission)
	}
	var in facebookRequest
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	if err := Required(map[string]string{"facebookUserId": in.UserID, "facebookUserToken": in.UserToken}); err != nil {
		return err
	}
	ctx := r.Context()
	userToken, err := s.longLived(ctx, in.UserToken)
	if err != nil {
		return err
	}
	var pages []page
	q := url.Values{"fields": {"id,name,access_token,instagram_business_account"}, "limit": {"100"}}
	for path := "/" + url.PathEscape(in.UserID) + "/accounts"; path != ""; {
		var ans struct {
			Data   []page `json:"data"`
			Paging struct {
				Next string `json:"next"`
			} `json:"paging"`
		}
		if err := s.graph.JSON(ctx, http.MethodGet, path, q, userToken, nil, &ans); err != nil {
			return interactive("meta list pages", err)
		}
		pages = append(pages, ans.Data...)
		path = ""
		if ans.Paging.Next != "" && len(pages) < 500 {
			if u, err := url.Parse(ans.Paging.Next); err == nil && u.Query().Get("after") != "" {
				q.Set("after", u.Query().Get("after"))
				path = "/" + url.PathEscape(in.UserID) + "/accounts"
			}
		}
	}
	d := UpsertDeps{Connections: s.deps.Connections, Credentials: s.deps.Credentials, Starter: s.deps.Actors, Publisher: s.deps.Publisher, Logger: s.log}
	out := []engine.Connection{}
	for _, pg := range pages {
		if pg.ID == "" || pg.AccessToken == "" {
			continue
		}
		conn, err := Upsert(ctx, d, p.CompanyID, engine.ChannelCredentials{Provider: engine.ProviderFacebook,
			ExternalID: pg.ID, Token: pg.AccessToken},
			engine.ConnectionInput{Name: ConnectionName(pg.Name, "Facebook", pg.ID), Channel: engine.ChannelFacebook})
		if err != nil {
			return err
		}
		out = append(out, conn)
		if !in.AddInstagram || pg.Instagram == nil || pg.Instagram.ID == "" {
			continue
		}
		conn, err = Upsert(ctx, d, p.CompanyID, engine.ChannelCredentials{Provider: engine.ProviderInstagram,
			ExternalID: pg.Instagram.ID, AccountID: pg.ID, Token: pg.AccessToken},
			engine.ConnectionInput{Name: ConnectionName(pg.Name+" Instagram", "Instagram", pg.Instagram.ID), Channel: engine.ChannelInstagram})
		if err != nil {
			return err
		}
		out = append(out, conn)
	}
	jsonapi.WriteJSON(w, http.StatusOK, map[string]any{"connections": out})
	return nil
}

// hubRegister subscribes a connection's page (Facebook, or the page of an Instagram
// account) or business account (WABA) to the app's web-hooks:
// POST /{id}/subscribed_apps. 200 {"success": true} means subscribed.
func (s *Service) hubRegister(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if !p.Can(engine.ActManageConnections) {
		return engine.E(engine.ErrNoPermission)
	}
	var in struct {
		ID FlexID `json:"id"`
	}
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	ctx := r.Context()
	if _, err := s.deps.Connections.Get(ctx, p.CompanyID, engine.ID(in.ID)); err != nil {
		return err
	}
	cred, err := s.deps.Credentials.Get(ctx, engine.ID(in.ID))
	if engine.CodeOf(err) == engine.ErrNotFound || err == nil && cred.CompanyID != p.CompanyID {
		return engine.E(engine.ErrNoWappFound)
	}
	if err != nil {
		return err
	}
	var target string
	var body any
	switch cred.Provider {
	case engine.ProviderFacebook:
		target = cred.ExternalID
		body = map[string]string{"subscribed_fields": "messages,message_deliveries,message_reads,message_echoes"}
	case engine.ProviderInstagram:
		target = cred.AccountID
		body = map[string]string{"subscribed_fields": "messages,message_deliveries,message_reads,message_echoes"}
	case engine.ProviderWABA:
		target = cred.AccountID
	default:
		return engine.E(engine.ErrNoWappFound)
	}
	var ans struct {
		Success bool `json:"success"`
	}
	if err := s.graph.JSON(ctx, http.MethodPost, "/"+url.PathEscape(target)+"/subscribed_apps", nil, cred.Token, body, &ans); err != nil {
		return interactive("meta subscribe", err)
	}
	if !ans.Success {
		return engine.Wrap(engine.ErrChannelRefused, errors.New("subscribed_apps answered success false"))
	}
	jsonapi.WriteJSON(w, http.StatusOK, map[string]bool{"success": true})
	return nil
}

// interactive maps a Graph failure of an interactive route: provider down or
// throttling → ERR_UNAVAILABLE, else Classify's code.
func interactive(what string, err error) error { return cloud.Interactive(Classify(what, err)) }

// webhook verifies, parses and delivers one notification; 200 only once every
// message and receipt is durable, 500 otherwise (Meta delivers again).
func (s *Service) webhook(w http.ResponseWriter, r *http.Request) {
	ServeSigned(w, r, SignedHook{Log: s.log, AppSecret: s.cfg.AppSecret, MaxBody: s.cfg.MaxBody, Timeout: s.cfg.CallTimeout},
		parsePageNotification, s.deliver)
}

func (s *Service) deliver(ctx context.Context, n *pageNotification) error {
	provider, prefix := engine.ProviderFacebook, PrefixFacebook
	if n.Object == "instagram" {
		provider, prefix = engine.ProviderInstagram, PrefixInstagram
	}
	for _, e := range n.Entry {
		if len(e.Messaging) == 0 {
			continue
		}
		cred, err := s.deps.Credentials.ByExternal(ctx, provider, e.ID)
		if engine.CodeOf(err) == engine.ErrNotFound {
			s.log.Warn().Str("provider", provider).Str("external_id", e.ID).Msg("web-hook for an unknown page dropped")
			continue
		}
		if err != nil {
			return err
		}
		sink := s.deps.Actors.Sink(cred.ConnectionID)
		for _, ev := range e.Messaging {
			if err := s.deliverEvent(ctx, cred, sink, prefix, &ev); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Service) deliverEvent(ctx context.Context, cred engine.ChannelCredentials, sink engine.ChannelSink, prefix string, ev *messaging) error {
	for _, in := range ev.inbounds(prefix, s.cfg.AppID) {
		m := in.msg
		if !m.FromMe {
			p := s.lookup(ctx, cred, strings.TrimPrefix(m.From.Number, prefix))
			m.From.Name, m.From.ProfilePicURL = p.name, p.pic
		}
		if in.url != "" {
			path, err := s.fetch(ctx, cred, in.url)
			if err != nil {
				return fmt.Errorf("attachment of %s: %w", m.ProviderID, err)
			}
			if path == "" {
				m.DropMedia() // the caption stays
			} else {
				m.MediaPath = path
			}
		}
		if err := sink.Inbound(ctx, m); err != nil {
			return fmt.Errorf("inbound %s: %w", m.ProviderID, err)
		}
	}
	if ev.Delivery != nil {
		for _, mid := range ev.Delivery.Mids {
			if mid == "" {
				continue
			}
			if err := sink.Receipt(ctx, engine.Receipt{ProviderID: mid, Ack: engine.AckSent}); err != nil {
				return err
			}
		}
	}
	if ev.Read != nil && ev.Read.Mid != "" {
		if err := sink.Receipt(ctx, engine.Receipt{ProviderID: ev.Read.Mid, Ack: engine.AckRead}); err != nil {
			return err
		}
	}
	return nil
}

// fetch downloads an attachment URL (a CDN link, no token) into the media store; ""
// when the store refuses the file for good or the link is gone.
func (s *Service) fetch(ctx context.Context, cred engine.ChannelCredentials, rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", nil
	}
	body, ctype, err := s.graph.Download(ctx, rawURL, "", s.cfg.MaxMedia)
	if err != nil {
		var ge *GraphError
		if errors.As(err, &ge) && ge.Status >= 400 && ge.Status < 500 {
			return "", nil
		}
		return "", err
	}
	defer body.Close()
	return cloud.SaveMedia(ctx, s.deps.Media, cred.CompanyID, body, "", ctype, func(err error) {
		s.log.Warn().Err(err).Int64("conn_id", cred.ConnectionID).Msg("inbound attachment refused by the store")
	})
}

// longLived exchanges the short-lived user token of the Facebook login for a
// long-lived one (GET /oauth/access_token, grant_type fb_exchange_token), so that the
// page tokens listed with it do not expire. Without AppID and AppSecret the token is
// used as given.
func (s *Service) longLived(ctx context.Context, token string) (string, error) {
	if s.cfg.AppID == 0 || s.cfg.AppSecret == "" {
		return token, nil
	}
	var ans struct {
		AccessToken string `json:"access_token"`
	}
	q := url.Values{"grant_type": {"fb_exchange_token"}, "client_id": {strconv.FormatInt(s.cfg.AppID, 10)},
		"client_secret": {s.cfg.AppSecret}, "fb_exchange_token": {token}}
	if err := s.graph.JSON(ctx, http.MethodGet, "/oauth/access_token", q, "", nil, &ans); err != nil {
		return "", interactive("meta exchange token", err)
	}
	if ans.AccessToken == "" {
		return "", engine.Wrap(engine.ErrChannelRefused, errors.New("token exchange without access_token"))
	}
	return ans.AccessToken, nil
}
