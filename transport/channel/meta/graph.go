package meta

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/channel/cloud"
)

// DefaultGraphURL and DefaultGraphVersion are where the Graph API lives.
const (
	DefaultGraphURL     = "https://graph.facebook.com"
	DefaultGraphVersion = "v21.0"
	// DefaultMaxBody caps a web-hook body (Meta's deliveries are a few KiB).
	DefaultMaxBody = 1 << 20
	// maxAnswer caps a Graph answer read into memory (media downloads excepted).
	maxAnswer = 4 << 20
)

// Graph is a small client of the Meta Graph API, shared by the WABA, Facebook and
// Instagram adapters. Safe for concurrent use.
type Graph struct {
	// static after construction
	base    string // e.g. https://graph.facebook.com/v21.0
	http    *http.Client
	maxFile int64
}

// NewGraph builds a client of baseURL ("" = DefaultGraphURL) and version ("" =
// DefaultGraphVersion). A nil client uses one with a 30 s timeout.
func NewGraph(baseURL, version string, client *http.Client) *Graph {
	if baseURL == "" {
		baseURL = DefaultGraphURL
	}
	if version == "" {
		version = DefaultGraphVersion
	}
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	return &Graph{base: strings.TrimRight(baseURL, "/") + "/" + version, http: client, maxFile: 100 << 20}
}

// GraphError is the Graph API's error body:
// {"error":{"message","type","code","error_subcode","fbtrace_id"}}.
type GraphError struct {
	Status  int    `json:"-"`
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    int    `json:"code"`
	Subcode int    `json:"error_subcode"`
	TraceID string `json:"fbtrace_id"`
}

func (e *GraphError) Error() string {
	return fmt.Sprintf("graph %d: code %d/%d %s: %s (trace %s)", e.Status, e.Code, e.Subcode, e.Type, e.Message, e.TraceID)
}

// Temporary reports whether the failure is worth retrying: server errors, throttling
// (HTTP 429, codes 1, 2, 4, 17, 32, 341, 613, 80007, 130429, 131048, 131056) and the
// temporary flag codes.
func (e *GraphError) Temporary() bool {
	if e.Status >= 500 || e.Status == http.StatusTooManyRequests {
		return true
	}
	switch e.Code {
	case 1, 2, 4, 17, 32, 341, 613, 80007, 130429, 131000, 131048, 131056:
		return true
	}
	return false
}

// ErrOutcomeUnknown is the code of a send whose outcome is unknown. It is not
// ERR_SENDING_WAPP_MSG on purpose: errors.Is matches engine.ErrChannelTemporary on
// that code alone, and the connection actor would retry. (Not in the spec's
// catalogue: the engine's code table is the place for it — to do.)
const ErrOutcomeUnknown = engine.ErrChannelOutcomeUnknown

// OutcomeUnknownError is a send that may have been accepted (cloud.OutcomeUnknownError):
// Classify maps it to ErrOutcomeUnknown, not temporary.
type OutcomeUnknownError = cloud.OutcomeUnknownError

// IsOutcomeUnknown reports whether err is (or wraps) an OutcomeUnknownError.
func IsOutcomeUnknown(err error) bool { return cloud.IsOutcomeUnknown(err) }

// Classify turns a Graph failure into what the connection actor acts on: temporary
// failures (network before the request was sent, 5xx with the Graph error body,
// throttling) wrap engine.ErrChannelTemporary; a send whose outcome is unknown
// (OutcomeUnknownError) is ErrOutcomeUnknown, never retried; an expired or revoked
// token is ERR_CHANNEL_CREDENTIALS; an unknown or unreachable recipient
// ERR_WAPP_INVALID_CONTACT; any other refusal ERR_CHANNEL_REFUSED.
func Classify(what string, err error) error {
	if err == nil {
		return nil
	}
	if IsOutcomeUnknown(err) {
		return engine.Wrap(ErrOutcomeUnknown, fmt.Errorf("%s: %w", what, err))
	}
	var ge *GraphError
	if !errors.As(err, &ge) {
		return fmt.Errorf("%s: %w: %w", what, engine.ErrChannelTemporary, err)
	}
	if ge.Temporary() {
		return fmt.Errorf("%s: %w: %w", what, engine.ErrChannelTemporary, err)
	}
	switch {
	case ge.Code == 190 || ge.Code == 102 || ge.Code == 10 && ge.Subcode == 0 || ge.Status == http.StatusUnauthorized:
		return engine.Wrap(engine.ErrChannelCredentials, fmt.Errorf("%s: %w", what, err))
	case ge.Code == 131026 || ge.Code == 131030 || ge.Code == 551 || ge.Code == 100 && ge.Subcode == 2018001:
		return engine.Wrap(engine.ErrWappInvalidContact, fmt.Errorf("%s: %w", what, err))
	}
	return engine.Wrap(engine.ErrChannelRefused, fmt.Errorf("%s: %w", what, err))
}

// URL is the Graph URL of path ("/{id}/messages") with query.
func (g *Graph) URL(path string, query url.Values) string {
	u := g.base + "/" + strings.TrimLeft(path, "/")
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	return u
}

// JSON sends method path with a JSON body (nil for none) and the bearer token, and
// decodes a 2xx answer into out (nil to discard). A non-2xx answer is a *GraphError.
func (g *Graph) JSON(ctx context.Context, method, path string, query url.Values, token string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode %s: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, g.URL(path, query), rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return g.do(req, token, out, false)
}

// SendJSON POSTs a message send (…/messages): like JSON, except that a failure after
// the request was written in full, or a 2xx answer that cannot be decoded, is an
// *OutcomeUnknownError rather than a retryable one (see Classify).
func (g *Graph) SendJSON(ctx context.Context, path, token string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.URL(path, nil), bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return g.do(req, token, out, true)
}

// Multipart posts fields and one file (field fileField, named fileName) to path.
func (g *Graph) Multipart(ctx context.Context, path, token string, fields map[string]string, fileField, fileName, fileType string, file io.Reader, out any) error {
	return g.multipart(ctx, path, token, fields, fileField, fileName, fileType, file, out, false)
}

// SendMultipart is Multipart for a message send: failures after the request was
// written are *OutcomeUnknownError, as for SendJSON.
func (g *Graph) SendMultipart(ctx context.Context, path, token string, fields map[string]string, fileField, fileName, fileType string, file io.Reader, out any) error {
	return g.multipart(ctx, path, token, fields, fileField, fileName, fileType, file, out, true)
}

func (g *Graph) multipart(ctx context.Context, path, token string, fields map[string]string, fileField, fileName, fileType string, file io.Reader, out any, send bool) error {
	buf, ctype, err := cloud.Multipart(fields, fmt.Sprintf(`form-data; name=%q; filename=%q`, fileField, fileName), fileType, file, g.maxFile)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.URL(path, nil), buf)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", ctype)
	return g.do(req, token, out, send)
}

// do runs req. With send, a failure after the request was written in full, a 2xx
// answer that cannot be read or decoded, and a gateway's 502/504 are
// *OutcomeUnknownError.
func (g *Graph) do(req *http.Request, token string, out any, send bool) error {
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	var w cloud.Written
	if send {
		req = w.Trace(req)
	}
	unknown := func(err error) error {
		if send {
			return &OutcomeUnknownError{Err: err}
		}
		return err
	}
	res, err := g.http.Do(req)
	if err != nil {
		err = scrubURL(err)
		if w.OK() {
			return unknown(err)
		}
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		if res.StatusCode/100 == 2 {
			return unknown(fmt.Errorf("read graph answer: %w", err))
		}
		return err
	}
	if res.StatusCode/100 != 2 {
		ge, ok := parseGraphError(res.StatusCode, b)
		if cloud.GatewayUnknown(res.StatusCode, ok) {
			return unknown(ge)
		}
		return ge
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return unknown(fmt.Errorf("decode graph answer of %s: %w", req.URL.Path, err))
	}
	return nil
}

// parseGraphError reads a Graph error body; ok false when b is not one (the error
// then holds the status text only).
func parseGraphError(status int, b []byte) (*GraphError, bool) {
	var body struct {
		Error *GraphError `json:"error"`
	}
	if json.Unmarshal(b, &body) != nil || body.Error == nil {
		return &GraphError{Status: status, Message: http.StatusText(status)}, false
	}
	body.Error.Status = status
	return body.Error, true
}

// Download GETs a media URL the Graph API handed out (authorised by the token) and
// returns its body, capped at limit bytes, and its Content-Type. The caller closes it.
func (g *Graph) Download(ctx context.Context, rawURL, token string, limit int64) (io.ReadCloser, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := g.http.Do(req)
	if err != nil {
		return nil, "", err
	}
	if res.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
		ge, _ := parseGraphError(res.StatusCode, b)
		return nil, "", ge
	}
	return cloud.LimitBody(res.Body, limit), res.Header.Get("Content-Type"), nil
}

// CheckSignature reports whether header ("sha256=<hex>", X-Hub-Signature-256) is the
// HMAC-SHA256 of body with the app secret. An empty secret matches nothing.
func CheckSignature(appSecret string, body []byte, header string) bool {
	if appSecret == "" {
		return false
	}
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(appSecret))
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}

// Sign is the X-Hub-Signature-256 value of body (fakes and tests).
func Sign(appSecret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(appSecret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Handshake answers the subscription check GET ?hub.mode=subscribe&hub.verify_token=…
// &hub.challenge=…: the challenge when the token matches, 403 otherwise.
func Handshake(w http.ResponseWriter, r *http.Request, verifyToken string) {
	q := r.URL.Query()
	tok := q.Get("hub.verify_token")
	if verifyToken == "" || q.Get("hub.mode") != "subscribe" ||
		!hmac.Equal([]byte(tok), []byte(verifyToken)) {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, q.Get("hub.challenge"))
}

// ReadSigned reads a web-hook body capped at limit and checks its signature. It
// writes the refusal itself (413, 401) and returns ok false then.
func ReadSigned(w http.ResponseWriter, r *http.Request, appSecret string, limit int64) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "bad body", http.StatusBadRequest)
		}
		return nil, false
	}
	if !CheckSignature(appSecret, body, r.Header.Get("X-Hub-Signature-256")) {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return nil, false
	}
	return body, true
}

// SignedHook is the POST side of a Meta web-hook (WABA, Facebook, Instagram).
type SignedHook struct {
	Log       zerolog.Logger
	AppSecret string        // the key of X-Hub-Signature-256 (ReadSigned)
	MaxBody   int64         // caps the body (ReadSigned)
	Timeout   time.Duration // bounds the delivery
}

// ServeSigned verifies (ReadSigned: 413, 400, 401, logged), parses (400 "bad
// notification") and delivers one notification within h.Timeout: 200 only once
// deliver returned nil, 500 otherwise so that Meta delivers again (cloud.Deliver).
func ServeSigned[N any](w http.ResponseWriter, r *http.Request, h SignedHook,
	parse func([]byte) (N, error), deliver func(context.Context, N) error) {
	body, ok := ReadSigned(w, r, h.AppSecret, h.MaxBody)
	if !ok {
		h.Log.Warn().Str("remote", r.RemoteAddr).Msg("web-hook refused: bad or missing signature, or body too large")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.Timeout)
	defer cancel()
	cloud.Deliver(ctx, w, cloud.Hook{Log: h.Log, Bad: "bad notification", Retry: "web-hook delivery failed: provider will retry"},
		body, parse, deliver)
}

// scrubURL drops the URL from a transport error: a query may hold a secret
// (client_secret of the token exchange).
func scrubURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s graph api: %w", ue.Op, ue.Err)
	}
	return err
}
