package engine_test

import (
	"maps"
	"strings"
	"testing"

	"atende/engine"
)

func TestValidateTenant(t *testing.T) {
	ok := engine.TenantInput{Name: " Loja Dois ", AdminName: " Dona Maria ", Email: " Maria@Loja.COM ", Password: "segredo-forte"}
	for _, tc := range []struct {
		name string
		in   func(*engine.TenantInput)
		want map[string]string
	}{
		{"valid", func(*engine.TenantInput) {}, nil},
		{"everything missing", func(in *engine.TenantInput) { *in = engine.TenantInput{} },
			map[string]string{"name": "Required", "adminName": "Required", "email": "Required", "password": "Required"}},
		{"short names", func(in *engine.TenantInput) { in.Name, in.AdminName = "L", "M" },
			map[string]string{"name": "Too Short!", "adminName": "Too Short!"}},
		{"long name", func(in *engine.TenantInput) { in.Name = strings.Repeat("x", 51) },
			map[string]string{"name": "Too Long!"}},
		{"bad e-mail", func(in *engine.TenantInput) { in.Email = "not-an-email" },
			map[string]string{"email": "Invalid email"}},
		{"short password", func(in *engine.TenantInput) { in.Password = "1234" },
			map[string]string{"password": "Too Short!"}},
		{"long password", func(in *engine.TenantInput) { in.Password = strings.Repeat("p", 51) },
			map[string]string{"password": "Too Long!"}},
		{"name with a newline", func(in *engine.TenantInput) { in.Name = "Loja\nDois" },
			map[string]string{"name": engine.MsgInvalidValue}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := ok
			tc.in(&in)
			out, err := engine.ValidateTenant(in)
			if got := engine.FieldsOf(err); !maps.Equal(got, tc.want) {
				t.Fatalf("fields = %v (err %v), want %v", got, err, tc.want)
			}
			if tc.want == nil && (out.Name != "Loja Dois" || out.AdminName != "Dona Maria" || out.Email != "maria@loja.com") {
				t.Fatalf("not normalised: %+v", out)
			}
		})
	}
}

// FuzzValidateTenant: any form either fails with field messages of the four fields
// only, or passes trimmed, within the lengths, with a lower-case e-mail.
func FuzzValidateTenant(f *testing.F) {
	f.Add("Loja", "Maria", "maria@loja.com", "segredo")
	f.Add("", "\x00", "a@b", strings.Repeat("é", 60))
	f.Add(" \n ", "M\u200b", "MARIA@LOJA.COM ", "12345")
	f.Fuzz(func(t *testing.T, name, admin, email, password string) {
		out, err := engine.ValidateTenant(engine.TenantInput{Name: name, AdminName: admin, Email: email, Password: password})
		if err != nil {
			fields := engine.FieldsOf(err)
			if len(fields) == 0 {
				t.Fatalf("error without fields: %v", err)
			}
			for k := range fields {
				switch k {
				case "name", "adminName", "email", "password":
				default:
					t.Fatalf("unexpected field %q", k)
				}
			}
			return
		}
		if n := len([]rune(out.Name)); n < engine.NameMin || n > engine.NameMax || out.Name != strings.TrimSpace(out.Name) {
			t.Fatalf("name %q passed", out.Name)
		}
		if out.Email != strings.ToLower(out.Email) || out.Email == "" {
			t.Fatalf("email %q passed", out.Email)
		}
		if n := len([]rune(out.Password)); n < engine.PasswordMin || n > engine.PasswordMax {
			t.Fatalf("password of %d runes passed", n)
		}
	})
}
