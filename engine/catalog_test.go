package engine

import "testing"

func TestFormatBRL(t *testing.T) {
	for _, tc := range []struct {
		cents int64
		want  string
	}{
		{0, "R$\u00a00,00"},
		{5, "R$\u00a00,05"},
		{99999, "R$\u00a0999,99"},
		{123456, "R$\u00a01.234,56"},
		{100000000000, "R$\u00a01.000.000.000,00"},
		{-150, "-R$\u00a01,50"},
	} {
		if got := FormatBRL(tc.cents); got != tc.want {
			t.Errorf("FormatBRL(%d) = %q, want %q", tc.cents, got, tc.want)
		}
	}
}

func TestCents(t *testing.T) {
	for _, tc := range []struct {
		reais float64
		cents int64
		ok    bool
	}{
		{0, 0, true}, {0.1, 10, true}, {19.99, 1999, true}, {1e9, 100000000000, true},
		{0.001, 0, false}, {-0.01, 0, false}, {1e9 + 0.01, 0, false},
	} {
		if c, ok := Cents(tc.reais); c != tc.cents || ok != tc.ok {
			t.Errorf("Cents(%v) = %d %v, want %d %v", tc.reais, c, ok, tc.cents, tc.ok)
		}
	}
}

func TestRenderCatalogTemplate(t *testing.T) {
	c := &Category{CategoryName: "Pizzas", DisplayName: "Pizzas da casa"}
	it := CatalogItem{ItemName: "Calabresa {{baseValue}}", BaseValue: 45.9, DeliveryValue: 5, Pax: 2, CatalogUserData: CatalogUserData{UserData3: "borda"}}
	for _, tc := range []struct{ tpl, want string }{
		{"", "Calabresa {{baseValue}}\nR$\u00a045,90"},
		{"{{itemName}}: {{ baseValue }}", "Calabresa {{baseValue}}: R$\u00a045,90"},
		{"{{displayName}}/{{categoryName}} {{pax}}p {{userData3}} {{totalValue}}", "Pizzas da casa/Pizzas 2p borda R$\u00a050,90"},
		{"{{unknown}} {{", "{{unknown}} {{"},
		{"{{deliveryValue}}}}", "R$\u00a05,00}}"},
	} {
		if got := RenderCatalogTemplate(tc.tpl, it, c); got != tc.want {
			t.Errorf("render %q = %q, want %q", tc.tpl, got, tc.want)
		}
	}
}
