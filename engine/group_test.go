package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateGroupBatch(t *testing.T) {
	good := GroupBatchInput{Name: "Turma", Root: "001", Admin1: "+55 11 99999-0001", Admin2: "5511999990002",
		Count: 3, MaxParticipants: 256, ConnectionID: 7, MediaPath: "1/x.jpg", MediaType: "image"}
	cases := []struct {
		name   string
		edit   func(*GroupBatchInput)
		fields map[string]string
	}{
		{"good", func(*GroupBatchInput) {}, nil},
		{"empty", func(in *GroupBatchInput) { *in = GroupBatchInput{} }, map[string]string{"name": MsgRequired, "root": MsgRequired,
			"admin1": MsgRequired, "admin2": MsgRequired, "count": MsgRequired, "maxParticipants": MsgRequired,
			"connectionId": MsgRequired, "media": MsgRequired}},
		{"name too long", func(in *GroupBatchInput) { in.Name = strings.Repeat("a", 22) }, map[string]string{"name": MsgTooLong}},
		{"name control chars", func(in *GroupBatchInput) { in.Name = "a\x00b" }, map[string]string{"name": MsgInvalidValue}},
		{"root four digits", func(in *GroupBatchInput) { in.Root = "1000" }, map[string]string{"root": MsgInvalidValue}},
		{"root not digits", func(in *GroupBatchInput) { in.Root = "-1" }, map[string]string{"root": MsgInvalidValue}},
		{"admin letters", func(in *GroupBatchInput) { in.Admin1 = "abc12345678" }, map[string]string{"admin1": MsgInvalidNumber}},
		{"admin short", func(in *GroupBatchInput) { in.Admin2 = "1234" }, map[string]string{"admin2": MsgInvalidNumber}},
		{"same admins", func(in *GroupBatchInput) { in.Admin2 = in.Admin1 }, map[string]string{"admin2": MsgInvalidValue}},
		{"negative count", func(in *GroupBatchInput) { in.Count = -3 }, map[string]string{"count": MsgInvalidValue}},
		{"count above cap", func(in *GroupBatchInput) { in.Count = MaxGroupsPerBatch + 1 }, map[string]string{"count": MsgInvalidValue}},
		{"numbering overflows", func(in *GroupBatchInput) { in.Root = "990"; in.Count = 20 }, map[string]string{"count": MsgTooLong}},
		{"huge max", func(in *GroupBatchInput) { in.MaxParticipants = 1 << 40 }, map[string]string{"maxParticipants": MsgInvalidValue}},
		{"max below the seats taken", func(in *GroupBatchInput) { in.MaxParticipants = 3 }, map[string]string{"maxParticipants": MsgInvalidValue}},
		{"not a picture", func(in *GroupBatchInput) { in.MediaType = "document" }, map[string]string{"media": MsgInvalidValue}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := good
			c.edit(&in)
			out, root, err := ValidateGroupBatch(in)
			if c.fields == nil {
				if err != nil || root != 1 || out.Admin1 != "5511999990001" {
					t.Fatalf("got %+v root %d err %v", out, root, err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != ErrValidation {
				t.Fatalf("err %v, want validation", err)
			}
			for f, m := range c.fields {
				if e.Fields[f] != m {
					t.Errorf("field %s: %q, want %q (all %v)", f, e.Fields[f], m, e.Fields)
				}
			}
		})
	}
}

func TestGroupName(t *testing.T) {
	if got := GroupName("Turma", 7, 2); got != "Turma 009" {
		t.Fatalf("got %q", got)
	}
}
