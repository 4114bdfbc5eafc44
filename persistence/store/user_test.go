package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

// usrFixture is a migrated database with tenants refA and refB, three queues of refA
// (ids 11 "Vendas", 12 "Suporte", 13 "Ágil") and one of refB (21).
func usrFixture(t *testing.T, d *db.DB) *store.Users {
	t.Helper()
	refSeedCompanies(t, d)
	dbtest.MustExec(t, d, `INSERT INTO queues (id, company_id, name, color, created_at, updated_at) VALUES
		(11, 1, 'Vendas', '#00ff00', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
		(12, 1, 'Suporte', '#0000ff', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
		(13, 1, 'Ágil', '#ff0000', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
		(21, 2, 'Outra', '#00ff00', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')`)
	return store.NewUsers(d, refClock)
}

func usrNew(company engine.ID, name, email string, queues ...engine.ID) engine.NewUser {
	return engine.NewUser{CompanyID: company, Name: name, Email: email, PasswordHash: "$2a$04$hash", Profile: engine.ProfileUser, QueueIDs: queues}
}

func usrQueueNames(u engine.User) []string {
	var out []string
	for _, q := range u.Queues {
		out = append(out, q.Name)
	}
	return out
}

func TestUserCreateGet(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := usrFixture(t, d)
		nu := usrNew(refA, "Ana Souza", "ana@example.com", 11, 12, 13)
		nu.ConnectionID = 7
		nu.Profile = engine.ProfileSuperv
		u, err := s.Create(ctx, nu)
		if err != nil {
			t.Fatal(err)
		}
		if u.ID <= 0 || u.CompanyID != refA || u.Name != "Ana Souza" || u.Email != "ana@example.com" ||
			u.Profile != engine.ProfileSuperv || u.ConnectionID != 7 || u.TokenVersion != 0 || u.PasswordHash != "$2a$04$hash" {
			t.Fatalf("created %+v", u)
		}
		// Queues come sorted by folded name: Ágil, Suporte, Vendas.
		if got := usrQueueNames(u); !slices.Equal(got, []string{"Ágil", "Suporte", "Vendas"}) {
			t.Fatalf("queues %v", got)
		}
		if u.Queues[0].Color != "#ff0000" || u.Queues[0].ID != 13 {
			t.Fatalf("queue %+v", u.Queues[0])
		}
		got, err := s.Get(ctx, refA, u.ID)
		if err != nil || got.Email != u.Email || len(got.Queues) != 3 || !got.CreatedAt.Equal(u.CreatedAt) {
			t.Fatalf("get %+v %v", got, err)
		}
		byEmail, err := s.ByEmail(ctx, " ANA@example.com ")
		if err != nil || byEmail.ID != u.ID || len(byEmail.Queues) != 3 {
			t.Fatalf("by email %+v %v", byEmail, err)
		}
		_, err = s.ByEmail(ctx, "nobody@example.com")
		refWantCode(t, err, engine.ErrNoUserFound)

		a, err := s.Auth(ctx, u.ID)
		if err != nil || a.CompanyID != refA || a.TokenVersion != 0 || a.UserID != u.ID {
			t.Fatalf("auth %+v %v", a, err)
		}
		_, err = s.Auth(ctx, u.ID+1000)
		refWantCode(t, err, engine.ErrNoUserFound)
	})
}

func TestUserCreateRefusals(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := usrFixture(t, d)
		if _, err := s.Create(ctx, usrNew(refA, "Ana", "ana@example.com")); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name  string
			nu    engine.NewUser
			code  engine.Code
			field string
		}{
			{"same e-mail same tenant", usrNew(refA, "Ana 2", "ana@example.com"), engine.ErrEmailAlreadyExists, ""},
			{"same e-mail other tenant", usrNew(refB, "Ana 3", "ana@example.com"), engine.ErrEmailAlreadyExists, ""},
			{"unknown queue", usrNew(refA, "Bia", "bia@example.com", 11, 999), engine.ErrValidation, "queueIds"},
			{"queue of other tenant", usrNew(refA, "Bia", "bia@example.com", 21), engine.ErrValidation, "queueIds"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.Create(ctx, tc.nu)
				refWantCode(t, err, tc.code)
				if tc.field != "" {
					refWantField(t, err, tc.field, engine.MsgInvalidValue)
				}
			})
		}
		// The refused creations left nothing behind (the transaction rolled back).
		if _, err := s.ByEmail(ctx, "bia@example.com"); engine.CodeOf(err) != engine.ErrNoUserFound {
			t.Fatalf("bia exists after refused create: %v", err)
		}
	})
}

func TestUserUpdate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := usrFixture(t, d)
		u, err := s.Create(ctx, usrNew(refA, "Ana", "ana@example.com", 11))
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.Create(ctx, usrNew(refA, "Bia", "bia@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		str := func(v string) *string { return &v }
		ids := func(v ...engine.ID) *[]engine.ID { return &v }
		id := func(v engine.ID) *engine.ID { return &v }
		steps := []struct {
			name    string
			ch      engine.UserChange
			version int
			check   func(t *testing.T, u engine.User)
		}{
			{"name only keeps the version", engine.UserChange{Name: str("Ana Maria")}, 0, func(t *testing.T, u engine.User) {
				if u.Name != "Ana Maria" || u.Email != "ana@example.com" || len(u.Queues) != 1 {
					t.Fatalf("%+v", u)
				}
			}},
			{"e-mail only keeps the version", engine.UserChange{Email: str("ana.maria@example.com")}, 0, func(t *testing.T, u engine.User) {
				if u.Email != "ana.maria@example.com" {
					t.Fatalf("%+v", u)
				}
			}},
			{"whatsapp keeps the version", engine.UserChange{ConnectionID: id(5)}, 0, func(t *testing.T, u engine.User) {
				if u.ConnectionID != 5 {
					t.Fatalf("%+v", u)
				}
			}},
			{"profile bumps", engine.UserChange{Profile: str(engine.ProfileAdmin)}, 1, func(t *testing.T, u engine.User) {
				if u.Profile != engine.ProfileAdmin {
					t.Fatalf("%+v", u)
				}
			}},
			{"queues bump", engine.UserChange{QueueIDs: ids(12, 13)}, 2, func(t *testing.T, u engine.User) {
				if got := usrQueueNames(u); !slices.Equal(got, []string{"Ágil", "Suporte"}) {
					t.Fatalf("queues %v", got)
				}
			}},
			{"password bumps", engine.UserChange{PasswordHash: str("$2a$04$other")}, 3, func(t *testing.T, u engine.User) {
				if u.PasswordHash != "$2a$04$other" {
					t.Fatalf("%+v", u)
				}
			}},
			{"clear whatsapp and queues", engine.UserChange{ConnectionID: id(0), QueueIDs: ids()}, 4, func(t *testing.T, u engine.User) {
				if u.ConnectionID != 0 || len(u.Queues) != 0 {
					t.Fatalf("%+v", u)
				}
			}},
			{"forced bump", engine.UserChange{BumpTokenVersion: true}, 5, nil},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				got, err := s.Update(ctx, refA, u.ID, st.ch)
				if err != nil {
					t.Fatal(err)
				}
				if got.TokenVersion != st.version {
					t.Fatalf("token version %d, want %d", got.TokenVersion, st.version)
				}
				if st.check != nil {
					st.check(t, got)
				}
			})
		}
		t.Run("duplicate e-mail", func(t *testing.T) {
			_, err := s.Update(ctx, refA, other.ID, engine.UserChange{Email: str("ana.maria@example.com")})
			refWantCode(t, err, engine.ErrEmailAlreadyExists)
		})
		t.Run("queue of other tenant leaves queues unchanged", func(t *testing.T) {
			if _, err := s.Update(ctx, refA, u.ID, engine.UserChange{QueueIDs: ids(11)}); err != nil {
				t.Fatal(err)
			}
			_, err := s.Update(ctx, refA, u.ID, engine.UserChange{QueueIDs: ids(21), Name: str("Changed")})
			refWantField(t, err, "queueIds", engine.MsgInvalidValue)
			got, _ := s.Get(ctx, refA, u.ID)
			if got.Name == "Changed" || len(got.Queues) != 1 || got.Queues[0].ID != 11 {
				t.Fatalf("partial update survived: %+v", got)
			}
		})
		t.Run("search follows renames", func(t *testing.T) {
			list, n, err := s.List(ctx, refA, engine.UserFilter{Search: "maria", Limit: 10})
			if err != nil || n != 1 || list[0].ID != u.ID {
				t.Fatalf("list %v %d %v", list, n, err)
			}
		})
	})
}

func TestUserTenantIsolation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := usrFixture(t, d)
		u, err := s.Create(ctx, usrNew(refA, "Ana", "ana@example.com", 11))
		if err != nil {
			t.Fatal(err)
		}
		name := "Hacked"
		_, err = s.Get(ctx, refB, u.ID)
		refWantCode(t, err, engine.ErrNoUserFound)
		_, err = s.Update(ctx, refB, u.ID, engine.UserChange{Name: &name})
		refWantCode(t, err, engine.ErrNoUserFound)
		refWantCode(t, s.Delete(ctx, refB, u.ID), engine.ErrNoUserFound)
		list, n, err := s.List(ctx, refB, engine.UserFilter{Limit: 40})
		if err != nil || n != 0 || len(list) != 0 {
			t.Fatalf("refB sees %v %d %v", list, n, err)
		}
		all, err := s.All(ctx, refB)
		if err != nil || len(all) != 0 {
			t.Fatalf("refB all %v %v", all, err)
		}
		got, err := s.Get(ctx, refA, u.ID)
		if err != nil || got.Name != "Ana" {
			t.Fatalf("refA's user changed: %+v %v", got, err)
		}
	})
}

func TestUserListSearchAndPages(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := usrFixture(t, d)
		for i := range 45 {
			if _, err := s.Create(ctx, usrNew(refA, fmt.Sprintf("Pessoa %02d", i), fmt.Sprintf("p%02d@example.com", i))); err != nil {
				t.Fatal(err)
			}
		}
		for _, nu := range []engine.NewUser{
			usrNew(refA, "João Ávila", "joao@example.com"),
			usrNew(refA, "100% Maria_x", "maria@example.com"),
			usrNew(refA, "Robert'); DROP TABLE users;--", "bobby@example.com"),
			usrNew(refB, "João de Outra", "joao@other.com"),
		} {
			if _, err := s.Create(ctx, nu); err != nil {
				t.Fatal(err)
			}
		}
		first, n, err := s.List(ctx, refA, engine.UserFilter{Limit: 40})
		if err != nil || n != 48 || len(first) != 40 {
			t.Fatalf("page 1: %d of %d, %v", len(first), n, err)
		}
		second, n, err := s.List(ctx, refA, engine.UserFilter{Limit: 40, Offset: 40})
		if err != nil || n != 48 || len(second) != 8 {
			t.Fatalf("page 2: %d of %d, %v", len(second), n, err)
		}
		// Order: folded name, so "100% …" first, "João Ávila" among the Js, pages disjoint.
		if first[0].Name != "100% Maria_x" {
			t.Fatalf("first %q", first[0].Name)
		}
		seen := map[engine.ID]bool{}
		for _, u := range append(first, second...) {
			if seen[u.ID] {
				t.Fatalf("user %d on two pages", u.ID)
			}
			seen[u.ID] = true
		}
		tests := []struct {
			search string
			want   []string
		}{
			{"joao", []string{"João Ávila"}},
			{"JOÃO ÁVILA", []string{"João Ávila"}},
			{"avila", []string{"João Ávila"}},
			{"maria@", []string{"100% Maria_x"}},
			{"%", []string{"100% Maria_x"}},
			{"_", []string{"100% Maria_x"}},
			{"'); drop table", []string{"Robert'); DROP TABLE users;--"}},
			{"pessoa 4", []string{"Pessoa 40", "Pessoa 41", "Pessoa 42", "Pessoa 43", "Pessoa 44"}},
			{"nobody", nil},
			{"\x00joao\n", []string{"João Ávila"}}, // control characters fold away
		}
		for _, tc := range tests {
			t.Run(tc.search, func(t *testing.T) {
				list, n, err := s.List(ctx, refA, engine.UserFilter{Search: tc.search, Limit: 40})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, u := range list {
					got = append(got, u.Name)
				}
				if !slices.Equal(got, tc.want) || n != len(tc.want) {
					t.Fatalf("search %q: %v (%d), want %v", tc.search, got, n, tc.want)
				}
			})
		}
		all, err := s.All(ctx, refA)
		if err != nil || len(all) != 48 {
			t.Fatalf("all %d %v", len(all), err)
		}
	})
}

func TestUserDelete(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := usrFixture(t, d)
		rt := store.NewRefreshTokens(d, refClock)
		u, err := s.Create(ctx, usrNew(refA, "Ana", "ana@example.com", 11, 12))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.Insert(ctx, engine.RefreshToken{CompanyID: refA, UserID: u.ID, FamilyID: "f", TokenHash: "h",
			ExpiresAt: refClock.Now().Add(1e12)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, refA, u.ID); err != nil {
			t.Fatal(err)
		}
		refWantCode(t, s.Delete(ctx, refA, u.ID), engine.ErrNoUserFound)
		_, err = s.Auth(ctx, u.ID)
		refWantCode(t, err, engine.ErrNoUserFound)
		var links, tokens int
		_ = d.SQL.QueryRow(`SELECT count(*) FROM user_queues WHERE user_id = $1`, u.ID).Scan(&links)
		_ = d.SQL.QueryRow(`SELECT count(*) FROM refresh_tokens WHERE user_id = $1`, u.ID).Scan(&tokens)
		if links != 0 || tokens != 0 {
			t.Fatalf("left %d queue links and %d refresh tokens", links, tokens)
		}
		// The e-mail is free again, and the new user never gets the deleted id.
		again, err := s.Create(ctx, usrNew(refA, "Ana", "ana@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if again.ID <= u.ID {
			t.Fatalf("new id %d reuses or precedes deleted id %d", again.ID, u.ID)
		}
		// Deleting a queue drops it from its users.
		u2, err := s.Create(ctx, usrNew(refA, "Bia", "bia@example.com", 11, 12))
		if err != nil {
			t.Fatal(err)
		}
		dbtest.MustExec(t, d, `DELETE FROM queues WHERE id = 12`)
		got, _ := s.Get(ctx, refA, u2.ID)
		if len(got.Queues) != 1 || got.Queues[0].ID != 11 {
			t.Fatalf("queues after queue delete %+v", got.Queues)
		}
	})
}
