package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"atende/engine"
)

func TestParseTicketSearch(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		name, in string
		want     engine.TicketSearch
	}{
		{"empty", "", engine.TicketSearch{}},
		{"blank", "   \t", engine.TicketSearch{}},
		{"name folded", "  João  DA Silva ", engine.TicketSearch{Kind: engine.SearchContact, Text: "joao da silva", Words: []string{"joao", "da", "silva"}}},
		{"phone-like text is digits", "+55 (65) 9999-0000", engine.TicketSearch{Kind: engine.SearchContact, Text: "556599990000"}},
		{"email", "Ana@Example.com", engine.TicketSearch{Kind: engine.SearchContact, Text: "ana@example.com", Words: []string{"ana", "example", "com"}}},
		{"word", "m:Boleto  VENCIDO", engine.TicketSearch{Kind: engine.SearchWord, Words: []string{"boleto", "vencido"}}},
		{"word upper prefix", "M:ação", engine.TicketSearch{Kind: engine.SearchWord, Words: []string{"acao"}}},
		{"word punctuation split", "m:e-mail, já!", engine.TicketSearch{Kind: engine.SearchWord, Words: []string{"e", "mail", "ja"}}},
		{"word repeats dropped", "m:sim sim SIM", engine.TicketSearch{Kind: engine.SearchWord, Words: []string{"sim"}}},
		{"word capped", "m:a b c d e f g h i j", engine.TicketSearch{Kind: engine.SearchWord, Words: []string{"a", "b", "c", "d", "e", "f", "g", "h"}}},
		{"word none", "m: ?!", engine.TicketSearch{Kind: engine.SearchNothing}},
		{"word too long", "m:" + strings.Repeat("x", engine.MaxWordRunes+1), engine.TicketSearch{Kind: engine.SearchNothing}},
		{"protocol", "p: 20261122-000042", engine.TicketSearch{Kind: engine.SearchProtocol, Text: "20261122-000042"}},
		{"protocol empty", "p:", engine.TicketSearch{Kind: engine.SearchNothing}},
		{"protocol wildcard", "p:2026%", engine.TicketSearch{Kind: engine.SearchNothing}},
		{"protocol quote", "p:1'--", engine.TicketSearch{Kind: engine.SearchNothing}},
		{"phone", "t:(65) 99999-0001", engine.TicketSearch{Kind: engine.SearchPhone, Text: "65999990001"}},
		{"phone no digits", "t:abc", engine.TicketSearch{Kind: engine.SearchNothing}},
		{"date iso", "d:2026-11-22", engine.TicketSearch{Kind: engine.SearchDate, Day: day(2026, 11, 22)}},
		{"date br", "D: 22/11/2026", engine.TicketSearch{Kind: engine.SearchDate, Day: day(2026, 11, 22)}},
		{"date impossible", "d:2026-02-30", engine.TicketSearch{Kind: engine.SearchNothing}},
		{"date partial", "d:2026-11", engine.TicketSearch{Kind: engine.SearchNothing}},
		{"unknown prefix is text", "x:Foo", engine.TicketSearch{Kind: engine.SearchContact, Text: "x:foo", Words: []string{"x", "foo"}}},
		{"prefix letter only", "m", engine.TicketSearch{Kind: engine.SearchContact, Text: "m", Words: []string{"m"}}},
		{"control characters only", "\x00\x01", engine.TicketSearch{Kind: engine.SearchNothing}},
		{"oversize", strings.Repeat("a", engine.MaxSearchParamRunes+1), engine.TicketSearch{Kind: engine.SearchNothing}},
		{"oversize bytes", strings.Repeat("é", 4*engine.MaxSearchParamRunes), engine.TicketSearch{Kind: engine.SearchNothing}},
		{"at the limit", strings.Repeat("a", engine.MaxSearchParamRunes), engine.TicketSearch{Kind: engine.SearchContact, Text: strings.Repeat("a", engine.MaxSearchParamRunes)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := engine.ParseTicketSearch(c.in)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("ParseTicketSearch(%q) = %+v, want %+v", c.in, got, c.want)
			}
		})
	}
}

func TestSearchWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Olá, JOÃO! Boleto nº 42-B", []string{"ola", "joao", "boleto", "no", "42", "b"}},
		{"", nil},
		{"  ...  ", nil},
		{"Ärger über Straße", []string{"arger", "uber", "straße"}},
		{"李小龍 e 李", []string{"李小龍", "e", "李"}},
		{"ﬁm", []string{"fim"}}, // compatibility ligature
		{"a\x00b\xffc", []string{"a", "b", "c"}},
		{strings.Repeat("z", engine.MaxWordRunes+1) + " ok", []string{"ok"}},
	} {
		if got := engine.SearchWords(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SearchWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTicketQueryValidate(t *testing.T) {
	for _, c := range []struct {
		name   string
		q      engine.TicketQuery
		fields []string // nil: valid
	}{
		{"zero", engine.TicketQuery{}, nil},
		{"full", engine.TicketQuery{Status: engine.StatusOpen, Date: "2026-11-22", TagIDs: []engine.ID{1}, UserIDs: []engine.ID{2},
			QueueIDs: []engine.ID{3}, PageNumber: engine.MaxTicketPageNumber, SearchParam: "'; --"}, nil},
		{"deep page with cursor", engine.TicketQuery{PageNumber: engine.MaxTicketPageNumber + 1, Cursor: "x"}, nil},
		{"status", engine.TicketQuery{Status: "OPEN"}, []string{"status"}},
		{"date", engine.TicketQuery{Date: "22-11-2026"}, []string{"date"}},
		{"ids", engine.TicketQuery{TagIDs: []engine.ID{0}, UserIDs: []engine.ID{-1}, QueueIDs: make([]engine.ID, engine.MaxTicketFilterIDs+1)},
			[]string{"queueIds", "tags", "users"}},
		{"negative page", engine.TicketQuery{PageNumber: -1}, []string{"pageNumber"}},
		{"deep page", engine.TicketQuery{PageNumber: engine.MaxTicketPageNumber + 1}, []string{"pageNumber"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.q.Validate()
			if c.fields == nil {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.ErrValidation {
				t.Fatalf("Validate = %v, want ErrValidation", err)
			}
			var got []string
			for _, f := range c.fields {
				if e.Fields[f] != engine.MsgInvalidValue {
					t.Errorf("field %s = %q", f, e.Fields[f])
				}
				got = append(got, f)
			}
			if len(e.Fields) != len(got) {
				t.Errorf("fields = %v, want %v", e.Fields, c.fields)
			}
		})
	}
}

func ExampleParseTicketSearch() {
	for _, s := range []string{"João", "m:boleto vencido", "p:20261122-000042", "t:(65) 99999", "d:22/11/2026", "x:y"} {
		p := engine.ParseTicketSearch(s)
		switch p.Kind {
		case engine.SearchWord:
			fmt.Println(p.Kind, p.Words)
		case engine.SearchDate:
			fmt.Println(p.Kind, p.Day.Format("2006-01-02"))
		default:
			fmt.Println(p.Kind, p.Text)
		}
	}
	// Output:
	// contact joao
	// word [boleto vencido]
	// protocol 20261122-000042
	// phone 6599999
	// date 2026-11-22
	// contact x:y
}

// whaticket's chat shows a quoted customer's name from quotedMsg.contact.name.
func TestWhaticketQuotedMessageCarriesContactName(t *testing.T) {
	b, err := json.Marshal(engine.Message{ID: 2, QuotedMsg: &engine.QuotedMessage{ID: 1, Body: "Oi", ContactName: "Maria"}})
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		QuotedMsg map[string]any `json:"quotedMsg"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	c, _ := m.QuotedMsg["contact"].(map[string]any)
	if c == nil || c["name"] != "Maria" || m.QuotedMsg["contactName"] != "Maria" || m.QuotedMsg["body"] != "Oi" ||
		m.QuotedMsg["id"] != float64(1) || m.QuotedMsg["fromMe"] != false {
		t.Fatalf("quotedMsg %s", b)
	}
	// Our own message quoted has no contact.
	b, _ = json.Marshal(engine.QuotedMessage{ID: 3, FromMe: true, Body: "Olá"})
	if string(b) != `{"id":3,"fromMe":true,"body":"Olá"}` {
		t.Fatalf("own quote %s", b)
	}
	// It reads back as it was written.
	var back engine.QuotedMessage
	if err := json.Unmarshal([]byte(`{"id":1,"fromMe":false,"body":"Oi","contactName":"Maria","contact":{"name":"Maria"}}`), &back); err != nil ||
		back != (engine.QuotedMessage{ID: 1, Body: "Oi", ContactName: "Maria"}) {
		t.Fatalf("read back %+v, %v", back, err)
	}
}
