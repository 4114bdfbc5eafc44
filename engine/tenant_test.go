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
