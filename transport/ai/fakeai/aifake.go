package fakeai

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Failure names of SetFailure and of the "[fake:…]" markers.
const (
	FailNone         = ""
	FailUnauthorized = "401"
	FailRateLimited  = "429"
	FailServer       = "500"
	FailTimeout      = "timeout" // hold the request until the client gives up
	FailBadJSON      = "badjson" // a 200 whose body is not JSON
	FailHuge         = "huge"    // a 200 with an endless body
)

// Request is one chat-completion request the fake answered, as it read it.
type Request struct {
	Model    string
	Messages []Message
}

// Message is one turn of a Request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Fake is the fake API. The zero value is not usable: call New.
type Fake struct {
	// static after construction
	apiKey string

	mu       sync.Mutex // guards the fields below
	failure  string
	requests []Request
	speeches int
}

// New returns a fake that demands apiKey as its bearer token ("" demands none).
func New(apiKey string) *Fake { return &Fake{apiKey: apiKey} }

// SetFailure makes every later request answer failure (one of the Fail… names);
// FailNone restores normal answers.
func (f *Fake) SetFailure(failure string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failure = failure
}

// Requests returns the chat-completion requests answered so far.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// Speeches counts the speech requests answered with audio.
func (f *Fake) Speeches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.speeches
}

// Handler serves the API under /v1.
func (f *Fake) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", f.chat)
	mux.HandleFunc("POST /v1/audio/speech", f.speech)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Unknown request URL: "+r.Method+" "+r.URL.Path)
	})
	return mux
}

// apiError writes OpenAI's error shape.
func apiError(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body := map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}}
	_ = json.NewEncoder(w).Encode(body)
}

// authorized checks the bearer token as OpenAI does.
func (f *Fake) authorized(w http.ResponseWriter, r *http.Request) bool {
	if f.apiKey == "" {
		return true
	}
	if r.Header.Get("Authorization") != "Bearer "+f.apiKey {
		apiError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		return false
	}
	return true
}

// fail answers failure; false when failure is none.
func (f *Fake) fail(w http.ResponseWriter, r *http.Request, failure string) bool {
	switch failure {
	case FailUnauthorized:
		apiError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
	case FailRateLimited:
		apiError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached for requests.")
	case FailServer:
		apiError(w, http.StatusInternalServerError, "server_error", "server_error", "The server had an error while processing your request.")
	case FailTimeout:
		// The server notices a client hanging up only once the body is read; a cap
		// keeps a client that never gives up from holding the fake forever.
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 4<<20))
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	case FailBadJSON:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id": "chatcmpl-1", "choices": [{"message": `)
	case FailHuge:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 4<<20))
		_, _ = io.WriteString(w, `{"id": "`)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				break
			}
		}
	default:
		return false
	}
	return true
}

func (f *Fake) current() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failure
}

// marker finds a "[fake:…]" failure in text.
func marker(text string) string {
	for _, m := range []string{FailUnauthorized, FailRateLimited, FailServer, FailTimeout, FailBadJSON, FailHuge} {
		if strings.Contains(text, "[fake:"+m+"]") {
			return m
		}
	}
	return FailNone
}

func (f *Fake) chat(w http.ResponseWriter, r *http.Request) {
	if !f.authorized(w, r) || f.fail(w, r, f.current()) {
		return
	}
	var req struct {
		Model    string    `json:"model"`
		Messages []Message `json:"messages"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.")
		return
	}
	if req.Model == "" || len(req.Messages) == 0 {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "you must provide a model parameter and messages")
		return
	}
	last := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	if f.fail(w, r, marker(last)) {
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, Request{Model: req.Model, Messages: req.Messages})
	f.mu.Unlock()

	answer := answerFor(req.Messages, last)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1764201600, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": answer, "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// answerFor is the deterministic answer of a conversation (see the package comment).
func answerFor(msgs []Message, last string) string {
	system := ""
	if len(msgs) > 0 && msgs[0].Role == "system" {
		system = msgs[0].Content
	}
	if rest, ok := strings.CutPrefix(system, "Translate the user's message into "); ok {
		lang, _, _ := strings.Cut(rest, ".")
		return "[" + lang + "] " + last
	}
	if strings.HasPrefix(system, "Classify the customer's message") {
		return classify(system, last)
	}
	turns := 0
	for _, m := range msgs {
		if m.Role != "system" {
			turns++
		}
	}
	return fmt.Sprintf("AI answer (%d turns): %s", turns, last)
}

// classify answers the intent of the listed ones sharing most words with text.
func classify(system, text string) string {
	words := map[string]bool{}
	for _, w := range fields(text) {
		words[w] = true
	}
	best, score := "none", 0
	for _, line := range strings.Split(system, "\n") {
		name, examples, ok := strings.Cut(strings.TrimPrefix(line, "- "), ": ")
		if !ok || !strings.HasPrefix(line, "- ") {
			continue
		}
		n := 0
		for _, w := range fields(examples) {
			if words[w] {
				n++
			}
		}
		if n > score {
			best, score = name, n
		}
	}
	return best
}

func fields(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func (f *Fake) speech(w http.ResponseWriter, r *http.Request) {
	if !f.authorized(w, r) || f.fail(w, r, f.current()) {
		return
	}
	var req struct {
		Model          string `json:"model"`
		Input          string `json:"input"`
		Voice          any    `json:"voice"`
		ResponseFormat string `json:"response_format"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.")
		return
	}
	if req.Model == "" || req.Input == "" || req.Voice == nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "model, input and voice are required")
		return
	}
	if len([]rune(req.Input)) > 4096 {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "string_above_max_length", "input is longer than 4096 characters")
		return
	}
	if f.fail(w, r, marker(req.Input)) {
		return
	}
	if req.ResponseFormat != "wav" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "this fake makes response_format wav only")
		return
	}
	f.mu.Lock()
	f.speeches++
	f.mu.Unlock()
	w.Header().Set("Content-Type", "audio/wav")
	_, _ = w.Write(Tone(len([]rune(req.Input))))
}

// Tone is a real WAV file: 8 kHz mono 16-bit PCM, a 440 Hz tone of 0.2 s plus 10 ms
// per character of the text it stands for (at most 3 s).
func Tone(chars int) []byte {
	const rate = 8000
	ms := min(200+10*chars, 3000)
	n := rate * ms / 1000
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(1)) // PCM
	le(uint16(1)) // mono
	le(uint32(rate))
	le(uint32(rate * 2))
	le(uint16(2))
	le(uint16(16))
	b.WriteString("data")
	le(uint32(2 * n))
	for i := range n {
		le(int16(8000 * math.Sin(2*math.Pi*440*float64(i)/rate)))
	}
	return b.Bytes()
}
