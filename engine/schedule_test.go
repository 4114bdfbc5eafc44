package engine

import (
	"strings"
	"testing"
	"time"
)

func TestValidateScheduleOrder(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	later := now.Add(10 * time.Minute)
	ok := ScheduleInput{Kind: ScheduleMessage, PhoneNumber: "5565999990000", ConnectionID: 3, SendAt: later, Message: "Olá!"}
	cases := []struct {
		name       string
		edit       func(*ScheduleInput)
		needNumber bool
		field, msg string
	}{
		{"everything missing names the number first", func(in *ScheduleInput) { *in = ScheduleInput{Kind: ScheduleMessage} }, true, "phoneNumber", MsgRequired},
		{"then the connection", func(in *ScheduleInput) { in.ConnectionID = 0; in.SendAt = time.Time{}; in.Message = "" }, true, "wpId", MsgRequired},
		{"then the schedule", func(in *ScheduleInput) { in.SendAt = time.Time{}; in.Message = "" }, true, "sendAt", MsgRequired},
		{"then the message", func(in *ScheduleInput) { in.Message = "" }, true, "message", MsgRequired},
		{"number too short", func(in *ScheduleInput) { in.PhoneNumber = "55659999999" }, true, "phoneNumber", MsgTooShort},
		{"number too long", func(in *ScheduleInput) { in.PhoneNumber = "5565999999999999" }, true, "phoneNumber", MsgTooLong},
		{"number with a plus", func(in *ScheduleInput) { in.PhoneNumber = "+556599999999" }, true, "phoneNumber", MsgInvalidNumber},
		{"number not asked with a contact", func(in *ScheduleInput) { in.PhoneNumber = ""; in.ContactID = 4 }, false, "", ""},
		{"a ticket stands for the connection", func(in *ScheduleInput) { in.PhoneNumber = ""; in.ConnectionID = 0; in.TicketID = 5 }, false, "", ""},
		{"sendAt now is not later than now", func(in *ScheduleInput) { in.SendAt = now }, true, "sendAt", MsgDateInPast},
		{"any future minute", func(in *ScheduleInput) { in.SendAt = now.Add(time.Minute) }, true, "", ""},
		{"message too short", func(in *ScheduleInput) { in.Message = "ok" }, true, "message", MsgTooShort},
		{"message 400", func(in *ScheduleInput) { in.Message = strings.Repeat("é", 400) }, true, "", ""},
		{"message 401", func(in *ScheduleInput) { in.Message = strings.Repeat("é", 401) }, true, "message", MsgTooLong},
		{"message with a NUL", func(in *ScheduleInput) { in.Message = "abc\x00" }, true, "message", MsgInvalidValue},
		{"negative contact", func(in *ScheduleInput) { in.ContactID = -1 }, true, "contactId", MsgInvalidValue},
		{"task: schedule first", func(in *ScheduleInput) { *in = ScheduleInput{Kind: ScheduleTask} }, false, "sendAt", MsgRequired},
		{"task: then name", func(in *ScheduleInput) { *in = ScheduleInput{Kind: ScheduleTask, SendAt: later} }, false, "taskName", MsgRequired},
		{"task: then message", func(in *ScheduleInput) { *in = ScheduleInput{Kind: ScheduleTask, SendAt: later, TaskName: "Ligar"} }, false, "message", MsgRequired},
		{"task: bad tag", func(in *ScheduleInput) {
			*in = ScheduleInput{Kind: ScheduleTask, SendAt: later, TaskName: "Ligar", Message: "Retornar", TagFilter: []ID{0}}
		}, false, "tagFilter", MsgInvalidValue},
		{"task ok", func(in *ScheduleInput) {
			*in = ScheduleInput{Kind: ScheduleTask, SendAt: later, TaskName: "Ligar", Message: "Retornar"}
		}, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := ok
			c.edit(&in)
			err := ValidateSchedule(in, c.needNumber, now)
			if c.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, isErr := err.(*Error)
			if !isErr || e.Code != ErrValidation || len(e.Fields) != 1 || e.Fields[c.field] != c.msg {
				t.Fatalf("got %v, want only %s on %s", err, c.msg, c.field)
			}
		})
	}
}

func TestCanChangeSchedule(t *testing.T) {
	own := Schedule{CompanyID: 1, UserID: 10}
	other := Schedule{CompanyID: 1, UserID: 11}
	foreign := Schedule{CompanyID: 2, UserID: 10}
	user := Principal{UserID: 10, CompanyID: 1, Profile: ProfileUser}
	superv := Principal{UserID: 12, CompanyID: 1, Profile: ProfileSuperv}
	for _, c := range []struct {
		name string
		p    Principal
		s    Schedule
		want Code
	}{
		{"user own", user, own, ""},
		{"user other's", user, other, ErrNoPermission},
		{"user another tenant's", user, foreign, ErrNoScheduleFound},
		{"superv other's", superv, other, ""},
		{"superv another tenant's", superv, foreign, ErrNoScheduleFound},
		{"unknown profile own", Principal{UserID: 10, CompanyID: 1, Profile: "root"}, own, ErrNoPermission},
	} {
		for _, del := range []bool{false, true} {
			var got Code
			if err := CanChangeSchedule(c.p, c.s, del); err != nil {
				got = CodeOf(err)
			}
			if got != c.want {
				t.Errorf("%s (delete %v): %q, want %q", c.name, del, got, c.want)
			}
		}
	}
}

func TestRenderMessage(t *testing.T) {
	loc := LoadZone(TenantTimeZone)
	at := time.Date(2026, 11, 26, 13, 5, 0, 0, time.UTC) // 09:05 in Cuiaba (UTC-4)
	got := RenderMessage("{{ms}} {{firstName}} ({{name}}, {{email}}, {{phone}}) {{date}} {{hour}} {{protocol}} {{ticket_id}} {{nope}}",
		MessageVars{ContactName: "Maria Silva", ContactEmail: "m@x.test", ContactPhone: "5565999990000", TicketID: 42, Now: at, Location: loc})
	want := "Bom dia Maria (Maria Silva, m@x.test, 5565999990000) 26/11/2026 09:05 2026112609050042 42 {{nope}}"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	for h, g := range map[int]string{4: "Boa noite", 5: "Bom dia", 11: "Bom dia", 12: "Boa tarde", 17: "Boa tarde", 18: "Boa noite"} {
		if got := Greeting(time.Date(2026, 1, 1, h, 30, 0, 0, loc), loc); got != g {
			t.Errorf("%02d:30: %s, want %s", h, got, g)
		}
	}
}

// A schedule set for 09:00 local is 09:00 local on both sides of a daylight-saving
// change (São Paulo kept summer time until 2019: UTC-2 in January, UTC-3 in May).
func TestLocalToUTCAcrossDST(t *testing.T) {
	loc := LoadZone("America/Sao_Paulo")
	summer := LocalToUTC(2019, time.January, 15, 9, 0, loc)
	winter := LocalToUTC(2019, time.May, 15, 9, 0, loc)
	if summer.Hour() != 11 || winter.Hour() != 12 {
		t.Fatalf("09:00 local is %v in summer and %v in winter", summer, winter)
	}
	if summer.In(loc).Hour() != 9 || winter.In(loc).Hour() != 9 {
		t.Fatal("not 09:00 local")
	}
	if LoadZone("Nowhere/Else") != time.UTC {
		t.Fatal("an unknown zone must fall back to UTC")
	}
}
