package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalizeAIConfig(t *testing.T) {
	ok := AIConfig{BaseURL: " https://api.example.com/v1/ ", Model: "gpt-4o-mini", APIKey: " sk-1 "}
	got, err := NormalizeAIConfig(ok)
	if err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	if got.BaseURL != "https://api.example.com/v1" || got.APIKey != "sk-1" || got.Voice != DefaultVoice || got.SpeechModel != DefaultSpeechModel {
		t.Errorf("normalised %+v", got)
	}
	cases := []struct {
		name  string
		c     AIConfig
		field string
		msg   string
	}{
		{"no url", AIConfig{Model: "m"}, "baseUrl", MsgRequired},
		{"ftp", AIConfig{BaseURL: "ftp://x/v1", Model: "m"}, "baseUrl", MsgInvalidValue},
		{"no host", AIConfig{BaseURL: "http:///v1", Model: "m"}, "baseUrl", MsgInvalidValue},
		{"credentials in url", AIConfig{BaseURL: "https://u:p@x/v1", Model: "m"}, "baseUrl", MsgInvalidValue},
		{"query", AIConfig{BaseURL: "https://x/v1?a=b", Model: "m"}, "baseUrl", MsgInvalidValue},
		{"no model", AIConfig{BaseURL: "https://x/v1"}, "model", MsgRequired},
		{"long model", AIConfig{BaseURL: "https://x/v1", Model: strings.Repeat("m", 201)}, "model", MsgTooLong},
		{"voice", AIConfig{BaseURL: "https://x/v1", Model: "m", Voice: "robot"}, "voice", MsgInvalidValue},
		{"key with newline", AIConfig{BaseURL: "https://x/v1", Model: "m", APIKey: "sk\nX-Evil: 1"}, "apiKey", MsgInvalidValue},
		{"long key", AIConfig{BaseURL: "https://x/v1", Model: "m", APIKey: strings.Repeat("k", 501)}, "apiKey", MsgTooLong},
		{"NUL in model", AIConfig{BaseURL: "https://x/v1", Model: "m\x00"}, "model", MsgInvalidValue},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NormalizeAIConfig(c.c)
			e, isE := err.(*Error)
			if !isE || e.Code != ErrValidation || e.Fields[c.field] != c.msg {
				t.Fatalf("got %v, want %s=%q", err, c.field, c.msg)
			}
		})
	}
	if s := (AIConfig{APIKey: "sk-secret"}).String(); strings.Contains(s, "sk-secret") {
		t.Errorf("String leaks the key: %s", s)
	}
}

func TestAskPromptBounds(t *testing.T) {
	var conv []Message
	for i := range 100 {
		conv = append(conv, Message{ID: ID(i + 1), Body: strings.Repeat("x", 50), FromMe: i%2 == 0})
	}
	conv = append(conv, Message{ID: 200, Body: "nota interna", MediaType: MediaWhisper},
		Message{ID: 201, Body: "resposta da IA", MediaType: MediaChatGPT},
		Message{ID: 202, Body: "apagada", IsDeleted: true},
		Message{ID: 203, Body: "última do cliente"})
	p := AskPrompt(conv, "O que responder?")
	if p[0].Role != AIRoleSystem || p[len(p)-1].Content != "Attendant's question: O que responder?" {
		t.Fatalf("frame: %+v", p)
	}
	turns := p[1 : len(p)-1]
	if len(turns) != AskContextMessages {
		t.Errorf("%d turns, want %d", len(turns), AskContextMessages)
	}
	if last := turns[len(turns)-1].Content; last != "Customer: última do cliente" {
		t.Errorf("latest turn %q", last)
	}
	for _, tr := range turns {
		for _, hidden := range []string{"nota interna", "resposta da IA", "apagada"} {
			if strings.Contains(tr.Content, hidden) {
				t.Errorf("prompt carries %q", hidden)
			}
		}
	}
	big := []Message{{Body: strings.Repeat("a", AskContextRunes)}, {Body: "recent"}}
	p = AskPrompt(big, "q")
	if len(p) != 3 || !strings.HasSuffix(p[1].Content, "recent") {
		t.Errorf("over the rune budget the older message must go: %d turns", len(p))
	}
}

func TestIntentClassification(t *testing.T) {
	intents := []AIIntent{
		{ID: 1, Name: "Financeiro", Examples: []string{"segunda via do boleto", "pagamento atrasado"}, QueueID: 10},
		{ID: 2, Name: "Suporte", Examples: []string{"internet caiu", "sem sinal no modem"}, QueueID: 20},
	}
	cases := []struct {
		text string
		want ID
	}{
		{"Oi, preciso da segunda via do boleto", 1},
		{"minha INTERNET caiu de novo", 2},
		{"bom dia", 0},
		{"", 0},
	}
	for _, c := range cases {
		got, ok := IntentByKeywords(intents, c.text)
		if (c.want == 0) == ok || got.ID != c.want {
			t.Errorf("%q: got %d %v, want %d", c.text, got.ID, ok, c.want)
		}
	}
	if _, ok := IntentByKeywords(intents, "boleto modem"); ok {
		t.Errorf("a tie must pick nothing")
	}
	for answer, want := range map[string]ID{"Suporte": 2, " \"financeiro\". ": 1, "none": 0, "Vendas": 0} {
		got, ok := IntentNamed(intents, answer)
		if (want == 0) == ok || got.ID != want {
			t.Errorf("answer %q: got %d", answer, got.ID)
		}
	}
}

func TestNormalizeIntent(t *testing.T) {
	in, err := NormalizeIntent(AIIntent{Name: " Vendas ", Examples: []string{" quero  comprar ", "", "quero comprar"}, QueueID: 3})
	if err != nil || in.Name != "Vendas" || len(in.Examples) != 1 || in.Examples[0] != "quero comprar" {
		t.Fatalf("got %+v %v", in, err)
	}
	_, err = NormalizeIntent(AIIntent{Name: "V", Examples: []string{strings.Repeat("é", 301)}})
	e, _ := err.(*Error)
	if e == nil || e.Fields["name"] != MsgTooShort || e.Fields["examples"] != MsgTooLong || e.Fields["queueId"] != MsgRequired {
		t.Errorf("got %v", err)
	}
}

func TestClipAnswer(t *testing.T) {
	s := ClipAnswer("  " + strings.Repeat("é", MaxAIAnswerRunes+10) + "\x00")
	if utf8.RuneCountInString(s) != MaxAIAnswerRunes || strings.ContainsRune(s, 0) {
		t.Errorf("clip: %d runes", utf8.RuneCountInString(s))
	}
	if ClipAnswer("ok\xff") != "ok" {
		t.Errorf("invalid UTF-8 kept")
	}
}

func TestDecideTranslateAndChatGPT(t *testing.T) {
	s := TicketState{ID: 1, CompanyID: 1, Status: StatusOpen, UserID: 7,
		Messages: map[ID]TicketMessageMeta{5: {}, 6: {Deleted: true}}}
	evs, err := DecideTicket(s, TranslateMessage{MessageID: 5, ByUserID: 7, Language: "es", Body: "Hola"}, goldenAt)
	if err != nil || len(evs) != 1 || evs[0].(TicketMessageTranslated).Body != "Hola" {
		t.Fatalf("translate: %v %v", evs, err)
	}
	for name, c := range map[string]TranslateMessage{
		"deleted":  {MessageID: 6, ByUserID: 7, Language: "es", Body: "x"},
		"unknown":  {MessageID: 9, ByUserID: 7, Language: "es", Body: "x"},
		"language": {MessageID: 5, ByUserID: 7, Language: "fr", Body: "x"},
		"blank":    {MessageID: 5, ByUserID: 7, Language: "es", Body: " "},
	} {
		if _, err := DecideTicket(s, c, goldenAt); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	evs, err = DecideTicket(s, AddWhisper{MessageID: 8, SenderID: 7, Body: "resposta", MediaType: MediaChatGPT}, goldenAt)
	if err != nil || evs[0].(TicketWhisperAdded).Media() != MediaChatGPT {
		t.Fatalf("chatgpt: %v %v", evs, err)
	}
	if _, err := DecideTicket(s, AddWhisper{MessageID: 8, SenderID: 7, Body: "x", MediaType: MediaImage}, goldenAt); CodeOf(err) != ErrValidation {
		t.Errorf("image whisper: %v", err)
	}
	p := Principal{UserID: 8, CompanyID: 1, Profile: ProfileAdmin}
	if err := AuthorizeTicket(p, s, TranslateMessage{MessageID: 5, ByUserID: 7, Language: "es", Body: "x"}); CodeOf(err) != ErrNoPermission {
		t.Errorf("translate as another user: %v", err)
	}
}

func TestFlowPrompt(t *testing.T) {
	got := FlowPrompt("Diga o horário de funcionamento", []string{"Oi", "  ", "Que horas vocês abrem?"})
	if len(got) != 3 || got[0].Role != AIRoleSystem || !strings.Contains(got[0].Content, "Diga o horário de funcionamento") {
		t.Fatalf("prompt %+v", got)
	}
	if got[1] != (AIMessage{Role: AIRoleUser, Content: "Oi"}) || got[2] != (AIMessage{Role: AIRoleUser, Content: "Que horas vocês abrem?"}) {
		t.Fatalf("history turns %+v (blank ones must be left out)", got[1:])
	}
}
