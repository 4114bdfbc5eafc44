package store_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

func newContacts(t *testing.T, d *db.DB) *store.Contacts {
	t.Helper()
	refSeedCompanies(t, d)
	return store.NewContacts(d, refClock)
}

func TestContactCreateGet(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		c, err := s.Create(ctx, refA, engine.ContactInput{
			Name: "  João da Silva ", Number: "+55 (65) 99999-0001", Email: " Joao@Example.COM ",
			ExtraInfo: []engine.ExtraInfo{{ID: 999, Name: "CPF", Value: "123"}, {Name: "location", Value: "-15.6,-56.1"}},
			SalesOpps: []engine.SalesOpp{{Name: "Plano anual", Value: "1200", Stage: "proposta"}, {Name: "Antigo", ClosingStatus: refIntp(engine.OppLost)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if c.ID <= 0 || c.CompanyID != refA || c.Name != "João da Silva" || c.Number != "5565999990001" || c.Email != "joao@example.com" {
			t.Fatalf("created %+v", c)
		}
		if !c.CreatedAt.Equal(refClock.Now().Truncate(time.Microsecond)) || c.AppraisalData == nil || c.AppraisalData.TotalCount != 0 {
			t.Fatalf("created at %v appraisal %+v", c.CreatedAt, c.AppraisalData)
		}
		if len(c.ExtraInfo) != 2 || c.ExtraInfo[0].Name != "CPF" || c.ExtraInfo[0].ID == 999 || c.ExtraInfo[1].Name != "location" {
			t.Fatalf("extra info %+v", c.ExtraInfo)
		}
		if len(c.SalesOpps) != 2 || c.SalesOpps[0].ClosingStatus != nil || c.SalesOpps[1].ClosingStatus == nil || *c.SalesOpps[1].ClosingStatus != engine.OppLost {
			t.Fatalf("sales opps %+v", c.SalesOpps)
		}
		got, err := s.Get(ctx, refA, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("get %+v\nwant %+v", got, c)
		}
	})
}

func TestContactValidationAndDuplicates(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		for _, tc := range []struct {
			name  string
			in    engine.ContactInput
			field string
			msg   string
		}{
			{"name required", engine.ContactInput{Number: "5565999990001"}, "name", engine.MsgRequired},
			{"name too short", engine.ContactInput{Name: "J"}, "name", engine.MsgTooShort},
			{"name too long", engine.ContactInput{Name: strings.Repeat("á", 51)}, "name", engine.MsgTooLong},
			{"number too short", engine.ContactInput{Name: "Ana", Number: "1234567"}, "number", engine.MsgTooShort},
			{"number letters", engine.ContactInput{Name: "Ana", Number: "55abc"}, "number", engine.MsgInvalidNumber},
			{"email", engine.ContactInput{Name: "Ana", Email: "ana@"}, "email", engine.MsgInvalidEmail},
			{"extra info name", engine.ContactInput{Name: "Ana", ExtraInfo: []engine.ExtraInfo{{Value: "x"}}}, "extraInfo.0.name", engine.MsgRequired},
			{"closing status", engine.ContactInput{Name: "Ana", SalesOpps: []engine.SalesOpp{{Name: "x", ClosingStatus: refIntp(2)}}}, "salesOpps.0.closingStatus", engine.MsgInvalidValue},
			{"too many items", engine.ContactInput{Name: "Ana", ExtraInfo: make100Extra(101)}, "extraInfo", engine.MsgTooLong},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.Create(ctx, refA, tc.in)
				refWantField(t, err, tc.field, tc.msg)
			})
		}

		if _, err := s.Create(ctx, refA, engine.ContactInput{Name: "Ana", Number: "5565999990001"}); err != nil {
			t.Fatal(err)
		}
		t.Run("duplicate number in tenant", func(t *testing.T) {
			_, err := s.Create(ctx, refA, engine.ContactInput{Name: "Outra Ana", Number: "+55 65 99999-0001"})
			refWantCode(t, err, engine.ErrDuplicatedContact)
		})
		t.Run("same number other tenant", func(t *testing.T) {
			if _, err := s.Create(ctx, refB, engine.ContactInput{Name: "Ana B", Number: "5565999990001"}); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("empty numbers do not clash", func(t *testing.T) {
			for _, n := range []string{"Página FB", "Perfil IG"} {
				if _, err := s.Create(ctx, refA, engine.ContactInput{Name: n}); err != nil {
					t.Fatal(err)
				}
			}
		})
		t.Run("duplicate number on update", func(t *testing.T) {
			c, err := s.Create(ctx, refA, engine.ContactInput{Name: "Bruno", Number: "5565999990002"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Update(ctx, refA, c.ID, engine.ContactInput{Name: "Bruno", Number: "5565999990001"})
			refWantCode(t, err, engine.ErrDuplicatedContact)
		})
	})
}

func make100Extra(n int) []engine.ExtraInfo {
	out := make([]engine.ExtraInfo, n)
	for i := range out {
		out[i] = engine.ExtraInfo{Name: fmt.Sprint("k", i), Value: "v"}
	}
	return out
}

func TestContactUpdateKeepsItemIDs(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		c, err := s.Create(ctx, refA, engine.ContactInput{
			Name: "Carla", Number: "5511988887777",
			ExtraInfo: []engine.ExtraInfo{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}, {Name: "c", Value: "3"}},
			SalesOpps: []engine.SalesOpp{{Name: "open"}, {Name: "won", ClosingStatus: refIntp(engine.OppWon)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.Create(ctx, refA, engine.ContactInput{Name: "Outro", ExtraInfo: []engine.ExtraInfo{{Name: "x", Value: "y"}}})
		if err != nil {
			t.Fatal(err)
		}
		a, b, cc := c.ExtraInfo[0], c.ExtraInfo[1], c.ExtraInfo[2]
		open, won := c.SalesOpps[0], c.SalesOpps[1]

		// Keep c (edited) and a (moved last), drop b, add one new, and try to steal the
		// other contact's row by its id.
		up, err := s.Update(ctx, refA, c.ID, engine.ContactInput{
			Name: "Carla Souza", Number: "5511988887777", Email: "carla@example.com",
			ExtraInfo: []engine.ExtraInfo{
				{ID: cc.ID, Name: "c", Value: "33"},
				{Name: "new", Value: "n"},
				{ID: other.ExtraInfo[0].ID, Name: "stolen", Value: "z"},
				{ID: a.ID, Name: "a", Value: "1"},
				{ID: a.ID, Name: "a twice", Value: "dup"},
			},
			// The closed one tries to reopen and the open one is marked lost.
			SalesOpps: []engine.SalesOpp{{ID: won.ID, Name: "won", ClosingStatus: nil}, {ID: open.ID, Name: "open", ClosingStatus: refIntp(engine.OppLost)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		x := up.ExtraInfo
		if len(x) != 5 || x[0].ID != cc.ID || x[0].Value != "33" || x[3].ID != a.ID || x[1].ID == 0 {
			t.Fatalf("extra info %+v", x)
		}
		for _, kept := range []engine.ID{x[1].ID, x[2].ID, x[4].ID} {
			if kept == b.ID || kept == a.ID || kept == cc.ID || kept == other.ExtraInfo[0].ID {
				t.Fatalf("new item reused id %d: %+v", kept, x)
			}
		}
		o := up.SalesOpps
		if len(o) != 2 || o[0].ID != won.ID || o[0].ClosingStatus == nil || *o[0].ClosingStatus != engine.OppWon ||
			o[1].ID != open.ID || o[1].ClosingStatus == nil || *o[1].ClosingStatus != engine.OppLost {
			t.Fatalf("sales opps %+v", o)
		}
		untouched, err := s.Get(ctx, refA, other.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(untouched.ExtraInfo) != 1 || untouched.ExtraInfo[0].Name != "x" {
			t.Fatalf("other contact changed: %+v", untouched.ExtraInfo)
		}

		// Nil lists leave them alone; empty lists clear them.
		same, err := s.Update(ctx, refA, c.ID, engine.ContactInput{Name: "Carla S", Number: "5511988887777"})
		if err != nil {
			t.Fatal(err)
		}
		if len(same.ExtraInfo) != 5 || len(same.SalesOpps) != 2 || same.Email != "" {
			t.Fatalf("nil lists changed items: %+v", same)
		}
		cleared, err := s.Update(ctx, refA, c.ID, engine.ContactInput{Name: "Carla S", ExtraInfo: []engine.ExtraInfo{}, SalesOpps: []engine.SalesOpp{}})
		if err != nil {
			t.Fatal(err)
		}
		if len(cleared.ExtraInfo) != 0 || len(cleared.SalesOpps) != 0 || cleared.Number != "" {
			t.Fatalf("cleared %+v", cleared)
		}
	})
}

func TestContactTenantIsolation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		c, err := s.Create(ctx, refA, engine.ContactInput{Name: "Segredo", Number: "5565999990009",
			SalesOpps: []engine.SalesOpp{{Name: "deal"}}})
		if err != nil {
			t.Fatal(err)
		}
		opp := c.SalesOpps[0].ID
		for _, tc := range []struct {
			name string
			do   func() error
		}{
			{"get", func() error { _, err := s.Get(ctx, refB, c.ID); return err }},
			{"update", func() error {
				_, err := s.Update(ctx, refB, c.ID, engine.ContactInput{Name: "Roubado"})
				return err
			}},
			{"update invalid input", func() error { _, err := s.Update(ctx, refB, c.ID, engine.ContactInput{}); return err }},
			{"delete", func() error { return s.Delete(ctx, refB, c.ID) }},
			{"close opp by contact", func() error { _, err := s.CloseSalesOpp(ctx, refB, c.ID, opp, 1); return err }},
			{"close opp any contact", func() error { _, err := s.CloseSalesOpp(ctx, refB, 0, opp, 1); return err }},
			{"appraisal", func() error { return s.AddAppraisal(ctx, refB, c.ID, 3) }},
		} {
			t.Run(tc.name, func(t *testing.T) { refWantCode(t, tc.do(), engine.ErrNoContactFound) })
		}
		page, err := s.List(ctx, refB, engine.ContactQuery{Search: "segredo"})
		if err != nil || page.Count != 0 || len(page.Contacts) != 0 {
			t.Fatalf("tenant B lists %+v, %v", page, err)
		}
		// FindOrCreate in B with A's number makes B its own contact.
		bc, created, err := s.FindOrCreateByNumber(ctx, refB, "5565999990009", "Cliente B")
		if err != nil || !created || bc.ID == c.ID || bc.CompanyID != refB {
			t.Fatalf("find or create in B: %+v %v %v", bc, created, err)
		}
		after, err := s.Get(ctx, refA, c.ID)
		if err != nil || after.Name != "Segredo" || after.SalesOpps[0].ClosingStatus != nil || after.AppraisalData.TotalCount != 0 {
			t.Fatalf("A's contact changed: %+v %v", after, err)
		}
	})
}

func TestContactSearch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		for _, in := range []engine.ContactInput{
			{Name: "João da Silva", Number: "5565999990001", Email: "joao@cuiaba.com.br"},
			{Name: "JOANA Prado", Number: "5511988880002"},
			{Name: "Conceição Araújo", Number: "5521977770003", Email: "ceicao@example.com"},
			{Name: "Loja 50% Off", Number: "5565333300004"},
			{Name: "under_score", Number: "5565333300005"},
			{Name: "O'Brien; DROP", Number: "5565333300006"},
			{Name: "Zé 🚀 Foguete", Number: "5565333300007"},
		} {
			if _, err := s.Create(ctx, refA, in); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			search string
			want   []string
		}{
			{"", []string{"Conceição Araújo", "JOANA Prado", "João da Silva", "Loja 50% Off", "O'Brien; DROP", "under_score", "Zé 🚀 Foguete"}},
			{"joao", []string{"João da Silva"}},
			{"JOÃO", []string{"João da Silva"}},
			{"jo", []string{"Conceição Araújo", "JOANA Prado", "João da Silva"}}, // araújo
			{"conceicao araujo", []string{"Conceição Araújo"}},
			{"silva", []string{"João da Silva"}},
			{"556599999", []string{"João da Silva"}},
			{"+55 (11) 98888", []string{"JOANA Prado"}},
			{"0003", []string{"Conceição Araújo"}},
			{"cuiaba.com", []string{"João da Silva"}},
			{"%", []string{"Loja 50% Off"}},
			{"_", []string{"under_score"}},
			{`\`, nil},
			{"o'brien; drop", []string{"O'Brien; DROP"}},
			{"'; DROP TABLE contacts; --", nil},
			{"🚀", []string{"Zé 🚀 Foguete"}},
			{"ze", []string{"Zé 🚀 Foguete"}},
			{"\x00joao", []string{"João da Silva"}},
			{"\xff\xfe", nil},
			{strings.Repeat("a", 10000), nil},
		} {
			t.Run(fmt.Sprintf("%.20q", tc.search), func(t *testing.T) {
				page, err := s.List(ctx, refA, engine.ContactQuery{Search: tc.search})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range page.Contacts {
					got = append(got, c.Name)
				}
				if !slices.Equal(got, tc.want) || page.Count != len(tc.want) || page.HasMore {
					t.Fatalf("got %q (count %d, more %v), want %q", got, page.Count, page.HasMore, tc.want)
				}
			})
		}
		// The table survived the hostile terms.
		page, err := s.List(ctx, refA, engine.ContactQuery{})
		if err != nil || page.Count != 7 {
			t.Fatalf("after hostile searches: %d, %v", page.Count, err)
		}
	})
}

func TestContactPaging(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		const n = 95
		for i := range n {
			// Pairs of equal folded names exercise the id tie-break of the keyset.
			name := fmt.Sprintf("Cliente %02d", i/2)
			if i%2 == 1 {
				name = strings.ToUpper(name)
			}
			if _, err := s.Create(ctx, refA, engine.ContactInput{Name: name, Number: fmt.Sprintf("55659%08d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		var byCursor []engine.ID
		cursor, pages := "", 0
		for {
			page, err := s.List(ctx, refA, engine.ContactQuery{Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if page.Count != n {
				t.Fatalf("count %d", page.Count)
			}
			// The same page by offset is the same contacts.
			byOffset, err := s.List(ctx, refA, engine.ContactQuery{Offset: (pages - 1) * engine.ContactPageSize})
			if err != nil {
				t.Fatal(err)
			}
			if len(byOffset.Contacts) != len(page.Contacts) || byOffset.HasMore != page.HasMore {
				t.Fatalf("page %d: offset %d contacts, cursor %d", pages, len(byOffset.Contacts), len(page.Contacts))
			}
			for i, c := range page.Contacts {
				if byOffset.Contacts[i].ID != c.ID {
					t.Fatalf("page %d row %d: offset %d, cursor %d", pages, i, byOffset.Contacts[i].ID, c.ID)
				}
				byCursor = append(byCursor, c.ID)
			}
			if !page.HasMore {
				if page.NextCursor != "" {
					t.Fatal("cursor on last page")
				}
				break
			}
			cursor = page.NextCursor
		}
		if pages != 3 || len(byCursor) != n {
			t.Fatalf("%d pages, %d contacts", pages, len(byCursor))
		}
		seen := map[engine.ID]bool{}
		for _, id := range byCursor {
			if seen[id] {
				t.Fatalf("contact %d twice", id)
			}
			seen[id] = true
		}
		// Equal folded names come in id order.
		first, _ := s.List(ctx, refA, engine.ContactQuery{Limit: 2})
		if first.Contacts[0].Name != "Cliente 00" || first.Contacts[1].Name != "CLIENTE 00" {
			t.Fatalf("first page %q %q", first.Contacts[0].Name, first.Contacts[1].Name)
		}
		for _, bad := range []string{"!!", "bm90LWEtY3Vyc29y", "MDpjbGllbnRl"} {
			_, err := s.List(ctx, refA, engine.ContactQuery{Cursor: bad})
			refWantField(t, err, "cursor", engine.MsgInvalidValue)
		}
		skip, err := s.List(ctx, refA, engine.ContactQuery{SkipCount: true, Limit: 3})
		if err != nil || skip.Count != -1 || len(skip.Contacts) != 3 || !skip.HasMore {
			t.Fatalf("skip count: %+v %v", skip, err)
		}
		_, err = s.List(ctx, refA, engine.ContactQuery{Offset: -1})
		refWantField(t, err, "pageNumber", engine.MsgInvalidValue)
	})
}

func TestContactDeleteCascades(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		c, err := s.Create(ctx, refA, engine.ContactInput{Name: "Efêmero",
			ExtraInfo: []engine.ExtraInfo{{Name: "a"}}, SalesOpps: []engine.SalesOpp{{Name: "b"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, refA, c.ID); err != nil {
			t.Fatal(err)
		}
		refWantCode(t, s.Delete(ctx, refA, c.ID), engine.ErrNoContactFound)
		_, err = s.Get(ctx, refA, c.ID)
		refWantCode(t, err, engine.ErrNoContactFound)
		var left int
		if err := d.SQL.QueryRow(`SELECT (SELECT count(*) FROM contact_extra_info) + (SELECT count(*) FROM contact_sales_opps)`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%d child rows left, %v", left, err)
		}
	})
}

func TestContactCloseSalesOpp(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		c, err := s.Create(ctx, refA, engine.ContactInput{Name: "Dora", SalesOpps: []engine.SalesOpp{{Name: "a"}, {Name: "b"}, {Name: "c"}}})
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.Create(ctx, refA, engine.ContactInput{Name: "Outra"})
		if err != nil {
			t.Fatal(err)
		}
		a, b, cc := c.SalesOpps[0].ID, c.SalesOpps[1].ID, c.SalesOpps[2].ID

		got, err := s.CloseSalesOpp(ctx, refA, c.ID, a, engine.OppWon)
		if err != nil {
			t.Fatal(err)
		}
		if st := got.SalesOpps[0].ClosingStatus; st == nil || *st != engine.OppWon || got.SalesOpps[1].ClosingStatus != nil {
			t.Fatalf("after close %+v", got.SalesOpps)
		}
		_, err = s.CloseSalesOpp(ctx, refA, c.ID, a, engine.OppLost)
		refWantCode(t, err, engine.ErrInvalidTransition)
		_, err = s.CloseSalesOpp(ctx, refA, c.ID, b, 2)
		refWantField(t, err, "closingStatus", engine.MsgInvalidValue)
		_, err = s.CloseSalesOpp(ctx, refA, other.ID, b, engine.OppWon)
		refWantCode(t, err, engine.ErrNoContactFound)
		_, err = s.CloseSalesOpp(ctx, refA, c.ID, 999999, engine.OppWon)
		refWantCode(t, err, engine.ErrNoContactFound)
		if got, err = s.CloseSalesOpp(ctx, refA, 0, b, engine.OppLost); err != nil || got.ID != c.ID {
			t.Fatalf("close by opportunity id alone: %+v %v", got, err)
		}

		// Racing closers: exactly one wins.
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, refused := 0, 0
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.CloseSalesOpp(ctx, refA, c.ID, cc, i%2)
				mu.Lock()
				defer mu.Unlock()
				switch engine.CodeOf(err) {
				case engine.ErrInvalidTransition:
					refused++
				default:
					if err != nil {
						t.Error(err)
					}
					wins++
				}
			}()
		}
		wg.Wait()
		if wins != 1 || refused != 7 {
			t.Fatalf("%d wins, %d refused", wins, refused)
		}
	})
}

func TestContactFindOrCreateByNumber(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		existing, err := s.Create(ctx, refA, engine.ContactInput{Name: "Já Existe", Number: "5565911112222"})
		if err != nil {
			t.Fatal(err)
		}
		t.Run("finds existing", func(t *testing.T) {
			c, created, err := s.FindOrCreateByNumber(ctx, refA, " 5565911112222 ", "Outro Nome")
			if err != nil || created || c.ID != existing.ID || c.Name != "Já Existe" {
				t.Fatalf("%+v %v %v", c, created, err)
			}
		})
		t.Run("name falls back to number", func(t *testing.T) {
			for _, name := range []string{"", " ", "x", "\x00\n"} {
				c, _, err := s.FindOrCreateByNumber(ctx, refA, "55659000"+fmt.Sprint(len(name)), name)
				if err != nil || c.Name != c.Number {
					t.Fatalf("name %q: %+v %v", name, c, err)
				}
			}
		})
		// A provider's id is no name for a person: web chat, Facebook, Instagram and
		// Telegram contacts without a name are "Visitante" and the id's end.
		t.Run("provider ids fall back to a visitor name", func(t *testing.T) {
			for number, want := range map[string]string{
				"webchat:CyRSq7Lw2x9":  "Visitante w2x9",
				"fb:24000000000001234": "Visitante 1234",
				"ig:IGSID7":            "Visitante SID7",
				"tg:987654":            "Visitante 7654",
			} {
				c, _, err := s.FindOrCreateByNumber(ctx, refA, number, " ")
				if err != nil || c.Name != want || c.Number != number {
					t.Fatalf("%s: %+v %v, want name %q", number, c, err, want)
				}
			}
		})
		t.Run("long name cut", func(t *testing.T) {
			c, _, err := s.FindOrCreateByNumber(ctx, refA, "5565900009999", strings.Repeat("ã", 80)+"\nfim")
			if err != nil || len([]rune(c.Name)) != engine.NameMax {
				t.Fatalf("%q %v", c.Name, err)
			}
		})
		t.Run("bad numbers", func(t *testing.T) {
			for _, n := range []string{"", "  ", "55 65", "55\x0065", strings.Repeat("9", 101), "\xff"} {
				_, _, err := s.FindOrCreateByNumber(ctx, refA, n, "x")
				if engine.CodeOf(err) != engine.ErrValidation {
					t.Fatalf("number %q: %v", n, err)
				}
			}
		})
		t.Run("concurrent callers share one row", func(t *testing.T) {
			const callers = 16
			ids := make([]engine.ID, callers)
			createdCount := 0
			var mu sync.Mutex
			var wg sync.WaitGroup
			for i := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, created, err := s.FindOrCreateByNumber(ctx, refA, "5565977776666", "Novo Cliente")
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					ids[i] = c.ID
					if created {
						createdCount++
					}
				}()
			}
			wg.Wait()
			if createdCount != 1 {
				t.Fatalf("%d callers created", createdCount)
			}
			for _, id := range ids {
				if id != ids[0] {
					t.Fatalf("ids %v", ids)
				}
			}
			page, err := s.List(ctx, refA, engine.ContactQuery{Search: "5565977776666"})
			if err != nil || page.Count != 1 || page.Contacts[0].Name != "Novo Cliente" {
				t.Fatalf("%+v %v", page, err)
			}
		})
	})
}

func TestContactAppraisal(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newContacts(t, d)
		c, err := s.Create(ctx, refA, engine.ContactInput{Name: "Avaliador"})
		if err != nil {
			t.Fatal(err)
		}
		for _, score := range []int{3, 2, 3} {
			if err := s.AddAppraisal(ctx, refA, c.ID, score); err != nil {
				t.Fatal(err)
			}
		}
		for _, bad := range []int{0, 4, -1} {
			refWantField(t, s.AddAppraisal(ctx, refA, c.ID, bad), "score", engine.MsgInvalidValue)
		}
		got, err := s.Get(ctx, refA, c.ID)
		if err != nil || *got.AppraisalData != (engine.AppraisalData{TotalSum: 8, TotalCount: 3}) {
			t.Fatalf("%+v %v", got.AppraisalData, err)
		}
		refWantCode(t, s.AddAppraisal(ctx, refA, 424242, 1), engine.ErrNoContactFound)
	})
}

// A contact a channel created keeps its channel address when staff rename it.
func TestChannelContactCanBeRenamed(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'A')`)
		s := store.NewContacts(d, nil)
		c, _, err := s.FindOrCreateByNumber(ctx, 1, "webchat:v42", "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Update(ctx, 1, c.ID, engine.ContactInput{Name: "Maria Visitante", Number: "webchat:v42", Email: "maria@example.com"})
		if err != nil {
			t.Fatalf("rename a web chat contact: %v", err)
		}
		if got.Name != "Maria Visitante" || got.Number != "webchat:v42" {
			t.Fatalf("after rename %+v", got)
		}
		// Changing it to something that is not a phone number is still refused.
		if _, err := s.Update(ctx, 1, c.ID, engine.ContactInput{Name: "Maria", Number: "webchat:other"}); engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("new non-phone number: %v", err)
		}
	})
}
