package engine

import (
	"strings"
	"testing"
	"time"
)

func TestValidateCampaignOrder(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	msgs := []CampaignMessage{{Body: "Olá @param1"}}
	cases := []struct {
		name   string
		in     CampaignInput
		code   Code
		fields map[string]string
	}{
		{"broadcast without channel", CampaignInput{Kind: KindBroadcast, ContactIDs: []ID{1}, Messages: msgs}, ErrNoChannelSelected, nil},
		{"broadcast without contacts", CampaignInput{Kind: KindBroadcast, SendFrom: []ID{1}, Messages: msgs}, ErrNoContactsSelected, nil},
		{"broadcast without message", CampaignInput{Kind: KindBroadcast, SendFrom: []ID{1}, ContactIDs: []ID{2}}, ErrValidation, map[string]string{"messages": MsgRequired}},
		{"empty campaign", CampaignInput{Kind: KindCampaign}, ErrValidation, map[string]string{"name": MsgRequired,
			"contacts": MsgRequired, "nameFilter": MsgRequired, "channelFilter": MsgRequired, "startAt": MsgRequired, "messages": MsgRequired}},
		{"campaign in the past", CampaignInput{Kind: KindCampaign, Name: "Black Friday", Groups: true, NameFilter: "%", ChannelFilter: "%",
			StartAt: now.Add(-time.Hour), Messages: msgs}, ErrValidation, map[string]string{"startAt": MsgDateInPast}},
		{"campaign three minutes in the past", CampaignInput{Kind: KindCampaign, Name: "Black Friday", Groups: true, NameFilter: "%", ChannelFilter: "%",
			StartAt: now.Add(-3 * time.Minute), Messages: msgs}, ErrValidation, map[string]string{"startAt": MsgDateInPast}},
		{"bad polygon and buttons", CampaignInput{Kind: KindCampaign, Name: "x", NameFilter: "%", ChannelFilter: "%", StartAt: now,
			Polygon: []Location{{Lat: 1, Lng: 1}, {Lat: 200, Lng: 1}, {Lat: 2, Lng: 2}}, Messages: msgs,
			Buttons: CampaignButtons{URL1: "javascript:alert(1)", Phone: "12ab"}}, ErrValidation,
			map[string]string{"polygon": MsgInvalidValue, "buttons": MsgInvalidValue}},
		{"duplicate sequence", CampaignInput{Kind: KindCampaign, Name: "x", NameFilter: "%", ChannelFilter: "%", StartAt: now, ContactIDs: []ID{1},
			Messages: []CampaignMessage{{Seq: 1, Body: "a"}, {Seq: 1, Body: "b"}}}, ErrValidation, map[string]string{"messages": MsgInvalidValue}},
		{"unknown kind", CampaignInput{Kind: "spam", Messages: msgs}, ErrValidation, map[string]string{"kind": MsgInvalidValue}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ValidateCampaign(c.in, now)
			if CodeOf(err) != c.code {
				t.Fatalf("code = %v (%v), want %v", CodeOf(err), err, c.code)
			}
			got := FieldsOf(err)
			for k, v := range c.fields {
				if got[k] != v {
					t.Errorf("field %s = %q, want %q (all %v)", k, got[k], v, got)
				}
			}
			if c.fields != nil && len(got) != len(c.fields) {
				t.Errorf("fields = %v, want %v", got, c.fields)
			}
		})
	}
	ok, err := ValidateCampaign(CampaignInput{Kind: KindBroadcast, SendFrom: []ID{1}, ContactIDs: []ID{2}, Messages: msgs}, now)
	if err != nil || ok.NameFilter != "%" || !ok.StartAt.Equal(now) || ok.Messages[0].Seq != 1 {
		t.Fatalf("broadcast defaults: %+v %v", ok, err)
	}
	// The form's current minute, saved a little later, is still "now".
	typed := CampaignInput{Kind: KindCampaign, Name: "Agora", ContactIDs: []ID{1}, NameFilter: "%", ChannelFilter: "%",
		StartAt: now.Add(-90 * time.Second), Messages: msgs}
	if _, err := ValidateCampaign(typed, now); err != nil {
		t.Fatalf("a start 90 s ago: %v", err)
	}
}

func TestInPolygon(t *testing.T) {
	square := []Location{{Lat: -15, Lng: -56}, {Lat: -15, Lng: -55}, {Lat: -16, Lng: -55}, {Lat: -16, Lng: -56}}
	if !InPolygon(Location{Lat: -15.5, Lng: -55.5}, square) {
		t.Error("centre is inside")
	}
	for _, p := range []Location{{Lat: -14.9, Lng: -55.5}, {Lat: -15.5, Lng: -54}, {Lat: 0, Lng: 0}} {
		if InPolygon(p, square) {
			t.Errorf("%v is outside", p)
		}
	}
}

func TestRenderCampaignMessage(t *testing.T) {
	got := RenderCampaignMessage("Oi {{firstName}}, @param1 vence @param2 (@param5.@param6)", []string{"a fatura", "amanhã"},
		MessageVars{ContactName: "Maria Souza", Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)})
	if want := "Oi Maria, a fatura vence amanhã (.@param6)"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	txt := ButtonsAsText("Promo", CampaignButtons{URL1Caption: "Site", URL1: "https://x.example", PhoneCaption: "Ligue", Phone: "+5565999"})
	if !strings.Contains(txt, "Site: https://x.example") || !strings.Contains(txt, "Ligue: tel:5565999") {
		t.Fatalf("buttons as text: %q", txt)
	}
}

func TestParseCampaignCSV(t *testing.T) {
	in := "\xEF\xBB\xBFnumero;nome;p1;p2\n" +
		"+55 (65) 99999-0001;Maria;fatura;amanhã\r\n" +
		"\n" +
		"abc;João\n" +
		"5565999990002;\"Ana;Paula\";x\n" +
		"5565999990001;Dup\n" +
		"123;curto\n" +
		"5565999990003;a;1;2;3;4;5;6\n" +
		"5565999990004;\"unterminated\n" +
		"5565999990005\n"
	got, err := ParseCampaignCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var numbers []string
	for _, c := range got.Contacts {
		numbers = append(numbers, c.Number)
	}
	if strings.Join(numbers, ",") != "5565999990001,5565999990002,5565999990005" {
		t.Fatalf("contacts = %v", numbers)
	}
	if got.Contacts[0].Name != "Maria" || strings.Join(got.Contacts[0].Params, "|") != "fatura|amanhã" || got.Contacts[1].Name != "Ana;Paula" {
		t.Fatalf("first contacts = %+v", got.Contacts[:2])
	}
	wantLines := map[int]string{4: MsgInvalidNumber, 7: MsgInvalidNumber, 8: MsgCSVFormat, 9: MsgCSVFormat}
	if len(got.Errors) != len(wantLines) {
		t.Fatalf("errors = %+v", got.Errors)
	}
	for _, e := range got.Errors {
		if wantLines[e.Line] != e.Message {
			t.Errorf("line %d: %q, want %q", e.Line, e.Message, wantLines[e.Line])
		}
	}
}

func FuzzParseCampaignCSV(f *testing.F) {
	for _, s := range []string{"", "5565999990001,Maria,a,b\n", "n;m\n1;2\n\"", "\xff\xfe\x00", strings.Repeat("9", 5000),
		"5565999990001;\"a\"\"b\";@param1\r\n5565999990001\n", "+(((\n,,,,,,,,,,\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseCampaignCSV(strings.NewReader(s))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, c := range got.Contacts {
			if _, ok := csvNumber(c.Number); !ok || c.Number != strings.Trim(c.Number, "0123456789") && !allDigits(c.Number) {
				t.Fatalf("bad number kept: %q", c.Number)
			}
			if seen[c.Number] || len(c.Params) > MaxCampaignParams {
				t.Fatalf("duplicate or too many params: %+v", c)
			}
			seen[c.Number] = true
		}
		for _, e := range got.Errors {
			if e.Line <= 0 || len(e.Text) > 200 || e.Message == "" {
				t.Fatalf("bad error: %+v", e)
			}
		}
	})
}
