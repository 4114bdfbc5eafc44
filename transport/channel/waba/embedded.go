package waba

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strconv"

	"atende/engine"
	"atende/transport/channel/meta"
	"atende/transport/jsonapi"
)

// embeddedRequest is POST /wacloudapi/embedded: what Meta's embedded signup pop-up
// hands the page — the code of FB.login (response_type code) and the ids of the
// WA_EMBEDDED_SIGNUP message event — and an optional two-step verification PIN.
type embeddedRequest struct {
	Code    string `json:"code"`
	WabaID  string `json:"wabaId"`
	PhoneID string `json:"phoneNumberId"`
	PIN     string `json:"pin"`
}

// Limits of the embedded signup's fields: Graph ids are decimal numbers of at most
// about 20 digits; a login code is a few hundred URL-safe characters.
const (
	maxGraphID = 32
	maxCode    = 4096
)

// EmbeddedConfig is GET /wacloudapi/embedded/config: what the browser needs to start
// Meta's embedded signup (FB.init appId, FB.login config_id). Enabled is false while
// the app id, the app secret (the server's half of the code exchange) or the
// configuration id is missing; the ids are then empty.
type EmbeddedConfig struct {
	AppID    string `json:"appId"`
	ConfigID string `json:"configId"`
	Enabled  bool   `json:"enabled"`
}

func (s *Service) embeddedEnabled() bool {
	return s.cfg.AppID > 0 && s.cfg.AppSecret != "" && s.cfg.ConfigID != ""
}

// embeddedConfig answers EmbeddedConfig to those who may register numbers. The app id
// and configuration id are public (Meta's SDK puts them in the page); the secret never
// leaves the server.
func (s *Service) embeddedConfig(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if !p.Can(engine.ActManageConnections) {
		return engine.E(engine.ErrNoPermission)
	}
	out := EmbeddedConfig{}
	if s.embeddedEnabled() {
		out = EmbeddedConfig{AppID: strconv.FormatInt(s.cfg.AppID, 10), ConfigID: s.cfg.ConfigID, Enabled: true}
	}
	jsonapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// embedded finishes Meta's embedded signup: it exchanges the code for a business token
// (GET /oauth/access_token with the app's id and secret), subscribes the app to the
// business account (POST /{waba-id}/subscribed_apps), registers the number for Cloud
// API messaging (POST /{phone-number-id}/register with a two-step verification PIN:
// the one given, else the one stored for the number, else a random one), reads the
// number's details and creates the connection as POST /wacloudapi does (connect), the
// PIN kept in the credentials. Nothing is stored unless every step succeeded. Without
// the app's id and secret it is refused (ERR_UNAVAILABLE: not configured).
func (s *Service) embedded(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if !p.Can(engine.ActManageConnections) {
		return engine.E(engine.ErrNoPermission)
	}
	if s.cfg.AppID <= 0 || s.cfg.AppSecret == "" {
		return engine.Wrap(engine.ErrUnavailable, errors.New("waba embedded signup: META_APP_ID and META_APP_SECRET are not configured"))
	}
	var in embeddedRequest
	if err := meta.DecodeJSON(r, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	ctx := r.Context()
	token, err := s.exchangeCode(ctx, in.Code)
	if err != nil {
		return err
	}
	if err := s.subscribe(ctx, in.WabaID, token); err != nil {
		return err
	}
	pin := in.PIN
	if pin == "" {
		pin = s.storedPIN(ctx, p.CompanyID, in.PhoneID)
	}
	if pin == "" {
		if pin, err = randomPIN(); err != nil {
			return err
		}
	}
	if err := s.registerPhone(ctx, in.PhoneID, token, pin); err != nil {
		return err
	}
	phone, err := s.readPhone(ctx, in.PhoneID, token)
	if err != nil {
		return err
	}
	conn, err := s.connect(ctx, p.CompanyID, registerRequest{WabaID: in.WabaID, PhoneID: in.PhoneID, Token: token}, phone, pin)
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, conn)
	return nil
}

// validate answers ERR_VALIDATION naming each bad field: code required, at most
// maxCode printable ASCII characters without spaces; wabaId and phoneNumberId
// required, decimal, at most maxGraphID digits; pin empty or six digits.
func (in *embeddedRequest) validate() error {
	bad := map[string]string{}
	switch {
	case in.Code == "":
		bad["code"] = "Required"
	case len(in.Code) > maxCode:
		bad["code"] = "Too Long!"
	case !printable(in.Code):
		bad["code"] = "Invalid value"
	}
	for field, v := range map[string]string{"wabaId": in.WabaID, "phoneNumberId": in.PhoneID} {
		switch {
		case v == "":
			bad[field] = "Required"
		case len(v) > maxGraphID:
			bad[field] = "Too Long!"
		case !decimal(v):
			bad[field] = "Invalid value"
		}
	}
	if in.PIN != "" && (len(in.PIN) != 6 || !decimal(in.PIN)) {
		bad["pin"] = "Invalid value"
	}
	if len(bad) > 0 {
		return &engine.Error{Code: engine.ErrValidation, Fields: bad}
	}
	return nil
}

func decimal(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// exchangeCode trades the embedded signup's code for a business token:
// GET /oauth/access_token?client_id&client_secret&code → {"access_token","token_type"}.
func (s *Service) exchangeCode(ctx context.Context, code string) (string, error) {
	var ans struct {
		AccessToken string `json:"access_token"`
	}
	q := url.Values{"client_id": {strconv.FormatInt(s.cfg.AppID, 10)}, "client_secret": {s.cfg.AppSecret}, "code": {code}}
	if err := s.graph.JSON(ctx, http.MethodGet, "/oauth/access_token", q, "", nil, &ans); err != nil {
		return "", graphFailure("waba embedded: exchange code", err)
	}
	if ans.AccessToken == "" {
		return "", engine.Wrap(engine.ErrChannelRefused, errors.New("waba embedded: code exchange answered no access_token"))
	}
	return ans.AccessToken, nil
}

// registerPhone registers the number for Cloud API messaging with its two-step
// verification PIN: POST /{phone-number-id}/register {"messaging_product":"whatsapp","pin"}.
func (s *Service) registerPhone(ctx context.Context, phoneID, token, pin string) error {
	body := map[string]string{"messaging_product": "whatsapp", "pin": pin}
	if err := s.graph.JSON(ctx, http.MethodPost, "/"+url.PathEscape(phoneID)+"/register", nil, token, body, nil); err != nil {
		return graphFailure("waba embedded: register number", err)
	}
	return nil
}

// randomPIN is a uniformly random six-digit PIN.
func randomPIN() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", fmt.Errorf("waba embedded: random pin: %w", err)
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}
