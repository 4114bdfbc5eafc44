package main

import (
	"bytes"
	"strings"
	"testing"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func TestTenantCommand(t *testing.T) {
	for _, dialect := range []db.Dialect{db.SQLite, db.Postgres} {
		t.Run(string(dialect), func(t *testing.T) {
			url := dbtest.URL(t, dialect)
			env := map[string]string{"DATABASE_URL": url, "ATENDE_ADMIN_PASSWORD": "segredo-da-loja"}
			getenv := func(k string) string { return env[k] }
			tenant := func(args ...string) (string, error) {
				var out, errs bytes.Buffer
				err := run(append([]string{"tenant"}, args...), getenv, &out, &errs)
				return out.String(), err
			}
			create := []string{"create", "--name", "Loja Nova", "--admin-name", "Dona Maria", "--email", "Maria@Loja.com"}

			out, err := tenant(create...)
			if err != nil || !strings.Contains(out, `"Loja Nova" created with admin maria@loja.com`) {
				t.Fatalf("create: %q %v", out, err)
			}
			// The same again is reported, not an error.
			out, err = tenant(create...)
			if err != nil || !strings.Contains(out, "already exists with admin maria@loja.com") {
				t.Fatalf("create again: %q %v", out, err)
			}
			// The name with another admin, or the e-mail in another tenant, is refused.
			_, err = tenant("create", "--name", "LOJA nova", "--admin-name", "Outro", "--email", "outro@loja.com")
			if err == nil || !strings.Contains(err.Error(), "ERR_TENANT_NAME_DUPLICATED") {
				t.Fatalf("duplicate name: %v", err)
			}
			_, err = tenant("create", "--name", "Loja Três", "--admin-name", "Outro", "--email", "maria@loja.com")
			if err == nil || !strings.Contains(err.Error(), "ERR_EMAIL_ALREADY_EXISTS") {
				t.Fatalf("taken e-mail: %v", err)
			}
			// Validation names each field before touching the database.
			_, err = tenant("create", "--name", "L", "--email", "nope", "--password", "1234")
			for _, want := range []string{`name="Too Short!"`, `adminName="Required"`, `email="Invalid email"`, `password="Too Short!"`} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("validation %v, want %s", err, want)
				}
			}
			_, err = tenant("create", "--name", "Loja Quatro", "--admin-name", "Quatro", "--email", "q@loja.com", "--password", "password")
			if err == nil || !strings.Contains(err.Error(), "Too common") {
				t.Fatalf("common password: %v", err)
			}
			if _, err = tenant("frobnicate"); err == nil {
				t.Fatal("unknown subcommand accepted")
			}
			if _, err = tenant("disable"); err == nil || !strings.Contains(err.Error(), "--id is required") {
				t.Fatalf("disable without id: %v", err)
			}
			if _, err = tenant("disable", "--id", "99"); err == nil || !strings.Contains(err.Error(), "ERR_NO_TENANT_FOUND") {
				t.Fatalf("disable unknown: %v", err)
			}

			out, err = tenant("list")
			if err != nil || strings.Count(out, "\n") != 2 || !strings.Contains(out, "enabled\t1\t0\t0\tLoja Nova") {
				t.Fatalf("list: %q %v", out, err)
			}
			id := strings.Fields(strings.Split(out, "\n")[1])[0]
			if out, err = tenant("disable", "--id", id); err != nil || !strings.Contains(out, "disabled") {
				t.Fatalf("disable: %q %v", out, err)
			}
			if out, _ = tenant("list"); !strings.Contains(out, "disabled\t1") {
				t.Fatalf("list after disable: %q", out)
			}
			if out, err = tenant("enable", "--id", id); err != nil || !strings.Contains(out, "enabled") {
				t.Fatalf("enable: %q %v", out, err)
			}
		})
	}
}
