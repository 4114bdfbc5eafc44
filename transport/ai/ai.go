package ai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"atende/engine"
)

// Config tunes the client. Zero values are documented per field.
type Config struct {
	// Timeout bounds one request to the provider; 0 means 60 s.
	Timeout time.Duration
	// MaxBodyBytes caps an answer's body; 0 means 8 MiB (a few seconds of speech
	// are well under it).
	MaxBodyBytes int64
	// MaxRetries is how often a failed request is retried by the client library
	// (429 and 5xx, with its back-off); 0 means none: the attendant sees the failure
	// at once and may ask again.
	MaxRetries int
	// Transport carries the requests; nil is http.DefaultTransport.
	Transport http.RoundTripper
}

// Client is the engine.AI of the tenants' endpoints.
type Client struct {
	// static after construction
	store engine.AIConfigStore
	cfg   Config
	http  *http.Client
}

var _ engine.AI = (*Client)(nil)

// New returns a client reading each tenant's endpoint from store.
func New(store engine.AIConfigStore, cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 8 << 20
	}
	base := cfg.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	// The client's Timeout bounds the whole exchange, the body's reading included (the
	// library's own request timeout leaves a raw speech answer's body unbounded).
	return &Client{store: store, cfg: cfg, http: &http.Client{Timeout: cfg.Timeout,
		Transport: boundedTransport{base: base, max: cfg.MaxBodyBytes}}}
}

// errBodyTooLarge is the read error of an answer over MaxBodyBytes.
var errBodyTooLarge = errors.New("ai: provider answer over the size limit")

// boundedTransport hands out answers whose bodies fail after max bytes.
type boundedTransport struct {
	base http.RoundTripper
	max  int64
}

func (t boundedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.max {
		_ = resp.Body.Close()
		return nil, errBodyTooLarge
	}
	resp.Body = &boundedBody{rc: resp.Body, left: t.max}
	return resp, nil
}

type boundedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells an answer of exactly the limit from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, errBodyTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// client builds the library's client for cfg.
func (c *Client) client(cfg engine.AIConfig) openai.Client {
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(c.http),
		option.WithMaxRetries(c.cfg.MaxRetries),
		option.WithRequestTimeout(c.cfg.Timeout),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	} else {
		opts = append(opts, option.WithAPIKey("none")) // the library demands one; a local endpoint ignores it
	}
	return openai.NewClient(opts...)
}

// config reads the tenant's configuration; ERR_AI_NOT_CONFIGURED without one.
func (c *Client) config(ctx context.Context, companyID engine.ID) (engine.AIConfig, error) {
	cfg, err := c.store.AIConfig(ctx, companyID)
	if err != nil {
		return cfg, err
	}
	if !cfg.Configured() {
		return cfg, engine.E(engine.ErrAINotConfigured)
	}
	return cfg, nil
}

// Complete implements engine.AI.
func (c *Client) Complete(ctx context.Context, companyID engine.ID, msgs []engine.AIMessage) (string, error) {
	cfg, err := c.config(ctx, companyID)
	if err != nil {
		return "", err
	}
	return c.complete(ctx, cfg, msgs)
}

func (c *Client) complete(ctx context.Context, cfg engine.AIConfig, msgs []engine.AIMessage) (string, error) {
	params := openai.ChatCompletionNewParams{Model: cfg.Model}
	for _, m := range msgs {
		switch m.Role {
		case engine.AIRoleSystem:
			params.Messages = append(params.Messages, openai.SystemMessage(m.Content))
		case engine.AIRoleAssistant:
			params.Messages = append(params.Messages, openai.AssistantMessage(m.Content))
		default:
			params.Messages = append(params.Messages, openai.UserMessage(m.Content))
		}
	}
	oc := c.client(cfg)
	resp, err := oc.Chat.Completions.New(ctx, params)
	if err != nil {
		return "", providerError("chat completion", err)
	}
	if len(resp.Choices) == 0 {
		return "", engine.Wrap(engine.ErrAIUnavailable, errors.New("chat completion: no choices"))
	}
	answer := engine.ClipAnswer(resp.Choices[0].Message.Content)
	if answer == "" {
		return "", engine.Wrap(engine.ErrAIUnavailable, errors.New("chat completion: empty answer"))
	}
	return answer, nil
}

// Speak implements engine.AI: a WAV file (the format every OpenAI-compatible speech
// endpoint makes and the media store accepts as audio).
func (c *Client) Speak(ctx context.Context, companyID engine.ID, text string) ([]byte, string, error) {
	cfg, err := c.config(ctx, companyID)
	if err != nil {
		return nil, "", err
	}
	oc := c.client(cfg)
	resp, err := oc.Audio.Speech.New(ctx, openai.AudioSpeechNewParams{
		Input:          text,
		Model:          cfg.SpeechModel,
		Voice:          openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String(cfg.Voice)},
		ResponseFormat: openai.AudioSpeechNewParamsResponseFormatWAV,
	})
	if err != nil {
		return nil, "", providerError("speech", err)
	}
	defer resp.Body.Close()
	audio, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", providerError("speech", err)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !strings.HasPrefix(mt, "audio/") || len(audio) == 0 {
		return nil, "", engine.Wrap(engine.ErrAIUnavailable, fmt.Errorf("speech: answer of type %q, %d bytes", mt, len(audio)))
	}
	return audio, mt, nil
}

// Check implements engine.AI: one short completion with cfg.
func (c *Client) Check(ctx context.Context, cfg engine.AIConfig) error {
	if !cfg.Configured() {
		return engine.E(engine.ErrAINotConfigured)
	}
	_, err := c.complete(ctx, cfg, []engine.AIMessage{{Role: engine.AIRoleUser, Content: "Answer OK."}})
	return err
}

// providerError maps a library error to the catalogue, keeping it as the cause.
func providerError(what string, err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		switch apiErr.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return engine.Wrap(engine.ErrAICredentials, fmt.Errorf("%s: %w", what, err))
		case http.StatusTooManyRequests:
			return engine.Wrap(engine.ErrAIRateLimited, fmt.Errorf("%s: %w", what, err))
		}
	}
	if errors.Is(err, context.Canceled) {
		return err // the caller went away: nothing to answer
	}
	return engine.Wrap(engine.ErrAIUnavailable, fmt.Errorf("%s: %w", what, err))
}
