package engine

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// AI assistance (spec section 1: AI configuration, assistant questions, translation,
// text-to-audio; /iaconfig and /NLPConfig). A tenant points Atende at an
// OpenAI-compatible endpoint; the attendant's composer asks it questions about the
// conversation, translates messages and turns text into voice notes, and the first
// message of a new ticket may be classified into an intent that picks its queue.

// AIConfig is a tenant's AI endpoint. APIKey is the plain key: it lives in memory only
// while a request needs it; the store keeps it encrypted and the HTTP API never
// answers it (AIConfigView says only whether one is set).
type AIConfig struct {
	CompanyID ID
	// BaseURL is the endpoint's root, e.g. "https://api.openai.com/v1"; requests go to
	// BaseURL + "/chat/completions" and BaseURL + "/audio/speech".
	BaseURL string
	APIKey  string
	// Model answers questions, translates and classifies; SpeechModel and Voice make
	// the voice notes (text-to-audio).
	Model       string
	SpeechModel string
	Voice       string
	UpdatedAt   time.Time
}

// String redacts the key so that a stray %v cannot leak it.
func (c AIConfig) String() string {
	return "AIConfig{company " + strconv.FormatInt(c.CompanyID, 10) + ", " + c.BaseURL + ", model " + c.Model + ", key redacted}"
}

// AIConfigView is what GET /iaconfig answers: the configuration without its key.
type AIConfigView struct {
	BaseURL     string    `json:"baseUrl"`
	Model       string    `json:"model"`
	SpeechModel string    `json:"speechModel"`
	Voice       string    `json:"voice"`
	HasKey      bool      `json:"hasKey"`
	Configured  bool      `json:"configured"`
	UpdatedAt   time.Time `json:"updatedAt,omitzero"`
}

// View is c as the API shows it.
func (c AIConfig) View() AIConfigView {
	return AIConfigView{BaseURL: c.BaseURL, Model: c.Model, SpeechModel: c.SpeechModel, Voice: c.Voice,
		HasKey: c.APIKey != "", Configured: c.Configured(), UpdatedAt: c.UpdatedAt}
}

// Configured: the tenant may use the AI features (an endpoint and a model; the key
// may be empty for a local endpoint that asks none).
func (c AIConfig) Configured() bool { return c.BaseURL != "" && c.Model != "" }

// Defaults of an AI configuration's optional fields.
const (
	DefaultSpeechModel = "gpt-4o-mini-tts"
	DefaultVoice       = "alloy"
)

// AI speech voices the endpoint's speech API names (OpenAI's built-in voices).
var aiVoices = []string{"alloy", "ash", "ballad", "cedar", "coral", "echo", "fable", "marin", "nova", "onyx", "sage", "shimmer", "verse"}

// AIVoices lists the voices a configuration may choose.
func AIVoices() []string { return slices.Clone(aiVoices) }

// NormalizeAIConfig trims c's fields, fills the speech defaults and validates: baseUrl
// an http(s) URL without credentials, query or fragment; model required; at most 200
// characters each (the key 500). A URL's trailing "/" is dropped.
func NormalizeAIConfig(c AIConfig) (AIConfig, error) {
	c.BaseURL = strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	c.APIKey = strings.TrimSpace(c.APIKey)
	c.Model = strings.TrimSpace(c.Model)
	c.SpeechModel = strings.TrimSpace(c.SpeechModel)
	c.Voice = strings.TrimSpace(c.Voice)
	if c.SpeechModel == "" {
		c.SpeechModel = DefaultSpeechModel
	}
	if c.Voice == "" {
		c.Voice = DefaultVoice
	}
	f := fieldErrors{}
	f.text("baseUrl", c.BaseURL, true, 0, 200)
	if _, ok := f["baseUrl"]; !ok {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			u.RawQuery != "" || u.Fragment != "" {
			f.add("baseUrl", MsgInvalidValue)
		}
	}
	f.text("model", c.Model, true, 0, 200)
	f.text("speechModel", c.SpeechModel, true, 0, 200)
	if !slices.Contains(aiVoices, c.Voice) {
		f.add("voice", MsgInvalidValue)
	}
	if utf8.RuneCountInString(c.APIKey) > 500 {
		f.add("apiKey", MsgTooLong)
	} else if strings.IndexFunc(c.APIKey, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		f.add("apiKey", MsgInvalidValue)
	}
	return c, f.err()
}

// AIMessage is one turn of a chat-completion request.
type AIMessage struct {
	Role    string // AIRoleSystem, AIRoleUser or AIRoleAssistant
	Content string
}

// Roles of AIMessage.
const (
	AIRoleSystem    = "system"
	AIRoleUser      = "user"
	AIRoleAssistant = "assistant"
)

// AI is what the composer, the inbound path and the flow engine ask of the tenant's
// endpoint. Each call reads the tenant's configuration (ERR_AI_NOT_CONFIGURED without
// one); the provider's failures come back as ERR_AI_CREDENTIALS, ERR_AI_RATE_LIMITED or
// ERR_AI_UNAVAILABLE. Safe for concurrent use.
type AI interface {
	// Complete answers the conversation msgs with the tenant's model.
	Complete(ctx context.Context, companyID ID, msgs []AIMessage) (string, error)
	// Speak turns text into speech with the tenant's speech model and voice: the audio
	// bytes and their MIME type.
	Speak(ctx context.Context, companyID ID, text string) ([]byte, string, error)
	// Check makes one small request with cfg (not necessarily saved) and reports the
	// provider's failure, for the configuration page's test button.
	Check(ctx context.Context, cfg AIConfig) error
}

// IntentRouter picks the queue of a new ticket from its first message (NLP intents):
// ok false when no intent fits. Only a failure to read the intents is an error; a
// provider outage falls back to keywords (transport/ai.Client).
type IntentRouter interface {
	IntentQueue(ctx context.Context, companyID ID, text string) (queueID ID, ok bool, err error)
}

// AIConfigStore keeps each tenant's AI configuration and NLP intents.
type AIConfigStore interface {
	// AIConfig is the tenant's configuration; the zero AIConfig (CompanyID set) when
	// it has none.
	AIConfig(ctx context.Context, companyID ID) (AIConfig, error)
	// PutAIConfig saves c (normalised). An empty c.APIKey keeps the stored key.
	PutAIConfig(ctx context.Context, c AIConfig) (AIConfig, error)
	// Intents lists the tenant's intents by name.
	Intents(ctx context.Context, companyID ID) ([]AIIntent, error)
	// PutIntent creates (ID 0) or replaces an intent; ERR_NOT_FOUND for another
	// tenant's or an unknown id.
	PutIntent(ctx context.Context, in AIIntent) (AIIntent, error)
	// DeleteIntent removes one; ERR_NOT_FOUND when the tenant has no such intent.
	DeleteIntent(ctx context.Context, companyID, id ID) error
}

// AIIntent is one NLP intent (/NLPConfig): a name, example phrases, and the queue a
// new ticket whose first message matches goes to.
type AIIntent struct {
	ID        ID       `json:"id"`
	CompanyID ID       `json:"companyId"`
	Name      string   `json:"name"`
	Examples  []string `json:"examples"`
	QueueID   ID       `json:"queueId"`
}

// Limits of an intent.
const (
	MaxIntentExamples     = 50
	MaxIntentExampleRunes = 300
)

// NormalizeIntent trims in and validates it: name 2–50 characters; 1–50 examples of
// at most 300 characters (blank ones dropped, duplicates kept once); queue required.
func NormalizeIntent(in AIIntent) (AIIntent, error) {
	in.Name = strings.TrimSpace(in.Name)
	var ex []string
	f := fieldErrors{}
	for _, e := range in.Examples {
		e = strings.Join(strings.Fields(e), " ")
		if e == "" || slices.Contains(ex, e) {
			continue
		}
		if !StorableText(e) {
			f.add("examples", MsgInvalidValue)
		}
		if utf8.RuneCountInString(e) > MaxIntentExampleRunes {
			f.add("examples", MsgTooLong)
		}
		ex = append(ex, e)
	}
	in.Examples = ex
	f.text("name", in.Name, true, 2, 50)
	if len(ex) == 0 {
		f.add("examples", MsgRequired)
	} else if len(ex) > MaxIntentExamples {
		f.add("examples", MsgTooLong)
	}
	f.id("queueId", in.QueueID, true)
	return in, f.err()
}

// Translation languages of PUT /messages/{id} and the composer's toggle (spec: cn,
// es, gb), with the name the model is told.
var translationLanguages = map[string]string{
	"cn": "Simplified Chinese",
	"es": "Spanish",
	"gb": "English",
}

// TranslationLanguage is the language name of a spec code; ok false for any other.
func TranslationLanguage(code string) (string, bool) {
	name, ok := translationLanguages[code]
	return name, ok
}

// Bounds of what an ask-AI request sends the model.
const (
	// AskContextMessages is how many of the conversation's latest messages go with a
	// question, AskContextRunes the most characters they may hold together (older
	// ones are dropped first).
	AskContextMessages = 30
	AskContextRunes    = 12000
	// MaxAIAnswerRunes caps a stored answer (a message body's limit).
	MaxAIAnswerRunes = 4096
)

// AskPrompt builds the chat-completion request of an ask-AI question: a system turn
// saying what the assistant is for, the conversation's latest messages (oldest
// first, at most AskContextMessages and AskContextRunes, deleted messages, whispers
// and earlier answers left out) as the customer's and the attendant's turns, then the
// question.
func AskPrompt(conversation []Message, question string) []AIMessage {
	var turns []AIMessage
	budget := AskContextRunes
	for i := len(conversation) - 1; i >= 0 && len(turns) < AskContextMessages; i-- {
		m := conversation[i]
		if m.IsDeleted || m.MediaType == MediaWhisper || m.MediaType == MediaChatGPT || strings.TrimSpace(m.Body) == "" {
			continue
		}
		n := utf8.RuneCountInString(m.Body)
		if n > budget {
			break
		}
		budget -= n
		who := "Customer: "
		if m.FromMe {
			who = "Attendant: "
		}
		turns = append(turns, AIMessage{Role: AIRoleUser, Content: who + m.Body})
	}
	slices.Reverse(turns)
	out := make([]AIMessage, 0, len(turns)+2)
	out = append(out, AIMessage{Role: AIRoleSystem, Content: "You help a customer-service attendant. The conversation " +
		"with the customer follows, one message per turn, each marked Customer or Attendant. Answer the attendant's " +
		"question that comes last, briefly, in the language of the question."})
	out = append(out, turns...)
	return append(out, AIMessage{Role: AIRoleUser, Content: "Attendant's question: " + question})
}

// FlowPrompt is what a Bizflow "ask the AI" node asks (FlowAI): the node's
// instruction, then the customer's latest messages (history, oldest first), one turn
// each. The answer goes to the customer as the flow's message, so the system turn asks
// for a reply addressed to them.
func FlowPrompt(instruction string, history []string) []AIMessage {
	out := make([]AIMessage, 0, len(history)+2)
	out = append(out, AIMessage{Role: AIRoleSystem, Content: "You answer a customer of a contact centre on its behalf, " +
		"briefly and politely, in the customer's language. Follow this instruction: " + instruction})
	for _, h := range history {
		if strings.TrimSpace(h) != "" {
			out = append(out, AIMessage{Role: AIRoleUser, Content: h})
		}
	}
	return out
}

// TranslatePrompt asks the model to translate text into the language of code (one of
// TranslationLanguage's codes), answering the translation alone.
func TranslatePrompt(text, code string) []AIMessage {
	name, _ := TranslationLanguage(code)
	return []AIMessage{
		{Role: AIRoleSystem, Content: "Translate the user's message into " + name + ". Answer with the translation only, " +
			"without quotes or comments."},
		{Role: AIRoleUser, Content: text},
	}
}

// IntentPrompt asks the model which intent a customer's first message shows: it must
// answer one of the intents' names or "none".
func IntentPrompt(intents []AIIntent, text string) []AIMessage {
	var b strings.Builder
	b.WriteString("Classify the customer's message into one of these intents. Answer only the intent's name, or none ")
	b.WriteString("when no intent fits.\n")
	for _, in := range intents {
		b.WriteString("- ")
		b.WriteString(in.Name)
		b.WriteString(": ")
		b.WriteString(strings.Join(in.Examples, " | "))
		b.WriteString("\n")
	}
	return []AIMessage{{Role: AIRoleSystem, Content: b.String()}, {Role: AIRoleUser, Content: text}}
}

// IntentNamed finds the intent a model's answer names (case, surrounding spaces,
// quotes and a final period ignored); ok false for "none" or an unknown name.
func IntentNamed(intents []AIIntent, answer string) (AIIntent, bool) {
	a := strings.Trim(strings.TrimSpace(answer), "\"'`.")
	for _, in := range intents {
		if strings.EqualFold(in.Name, strings.TrimSpace(a)) {
			return in, true
		}
	}
	return AIIntent{}, false
}

// IntentByKeywords is the classification without a model (no AI configured, or the
// provider failed): the intent sharing the most words with text, counting words of
// three letters or more of its examples and name; ok false when none shares a word,
// or two intents tie at the top.
func IntentByKeywords(intents []AIIntent, text string) (AIIntent, bool) {
	words := map[string]bool{}
	for _, w := range wordsOf(text) {
		words[w] = true
	}
	best, score, tie := AIIntent{}, 0, false
	for _, in := range intents {
		seen := map[string]bool{}
		n := 0
		for _, src := range append([]string{in.Name}, in.Examples...) {
			for _, w := range wordsOf(src) {
				if words[w] && !seen[w] {
					seen[w] = true
					n++
				}
			}
		}
		switch {
		case n > score:
			best, score, tie = in, n, false
		case n == score && n > 0:
			tie = true
		}
	}
	if score == 0 || tie {
		return AIIntent{}, false
	}
	return best, true
}

// wordsOf lowercases s and splits it into its words of three letters or more.
func wordsOf(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if utf8.RuneCountInString(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}

// ClipAnswer trims a model's answer and cuts it to MaxAIAnswerRunes.
func ClipAnswer(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), ""))
	if utf8.RuneCountInString(s) > MaxAIAnswerRunes {
		s = string([]rune(s)[:MaxAIAnswerRunes])
	}
	return s
}
