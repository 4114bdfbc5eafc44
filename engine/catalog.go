package engine

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"
)

// The product catalog (spec section 3, Category and Catalog item): items a sales team
// sends from the chat composer ('#' searches the catalog, '@' the stickers, which are
// items of a category named "sticker"). Reading needs only a login to the tenant (an
// attendant searches from the composer); writing needs ActManageCatalog.

// CatalogPageSize is the number of items or categories a list page answers.
const CatalogPageSize = 20

// Catalog limits (Atende's choice: the spec gives none).
const (
	CatalogNameMax  = 100          // categoryName, displayName, itemName
	CatalogFieldMax = 200          // manufacturer, dimensions, unitName, userData1–9
	CatalogMaxCents = 100000000000 // R$ 1.000.000.000,00: larger values are typing errors
	CatalogPaxMax   = 100000
	CatalogOrderMax = 1000000
)

// StickerCategory is the folded name of the category whose items are stickers: the
// composer's '@' search sends searchParam=sticker.
const StickerCategory = "sticker"

// Ways of sending an item (the category's "mustaccio"): its image with the rendered
// text as caption, the text alone, or the image alone.
const (
	SendImageText = "imageText"
	SendText      = "text"
	SendImage     = "image"
)

// Category groups catalog items and holds the message template they are sent with.
type Category struct {
	ID           ID        `json:"id"`
	CompanyID    ID        `json:"companyId"`
	CategoryName string    `json:"categoryName"`
	Mustaccio    string    `json:"mustaccio"`
	DisplayName  string    `json:"displayName"`
	IsActive     bool      `json:"isActive"`
	Template     string    `json:"template"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// CategoryInput is the category form. IsActive nil means true.
type CategoryInput struct {
	CategoryName string `json:"categoryName"`
	Mustaccio    string `json:"mustaccio"`
	DisplayName  string `json:"displayName"`
	IsActive     *bool  `json:"isActive"`
	Template     string `json:"template"`
}

// ValidateCategory: categoryName required, 1 to 100, single line; displayName up to
// 100; mustaccio one of imageText (the default), text, image; template multi-line up
// to 4096 characters.
func ValidateCategory(in CategoryInput) (CategoryInput, error) {
	out := CategoryInput{
		CategoryName: strings.TrimSpace(in.CategoryName),
		Mustaccio:    strings.TrimSpace(in.Mustaccio),
		DisplayName:  strings.TrimSpace(in.DisplayName),
		Template:     strings.TrimSpace(in.Template),
		IsActive:     in.IsActive,
	}
	if out.IsActive == nil {
		active := true
		out.IsActive = &active
	}
	if out.Mustaccio == "" {
		out.Mustaccio = SendImageText
	}
	f := fieldErrors{}
	f.text("categoryName", out.CategoryName, true, 1, CatalogNameMax)
	f.text("displayName", out.DisplayName, false, 0, CatalogNameMax)
	switch out.Mustaccio {
	case SendImageText, SendText, SendImage:
	default:
		f.add("mustaccio", MsgInvalidValue)
	}
	f.longText("template", out.Template, false, LongTextMax)
	return finish(in, out, f)
}

// CatalogItem is a product (or a sticker) of the catalog. Money is in reais with two
// decimals (kept as integer cents). Category is the item's category with its template
// (nil when it has none); Categories lists the same for whaticket's clients. Message is
// the category's template rendered for this item (RenderCatalogTemplate).
type CatalogItem struct {
	ID            ID         `json:"id"`
	CompanyID     ID         `json:"companyId"`
	ItemName      string     `json:"itemName"`
	Description   string     `json:"description"`
	Manufacturer  string     `json:"manufacturer"`
	Dimensions    string     `json:"dimensions"`
	UnitName      string     `json:"unitName"`
	Pax           int        `json:"pax"`
	CategoryID    ID         `json:"categoryId"`
	Category      *Category  `json:"category"`
	Categories    []Category `json:"categories"`
	Order         int        `json:"order"`
	BaseValue     float64    `json:"baseValue"`
	DeliveryValue float64    `json:"deliveryValue"`
	ProductImg    string     `json:"productImg"`
	// ProductImgURL is a signed link to a stored productImg (set by the HTTP layer),
	// or productImg itself when it is a web address.
	ProductImgURL string `json:"productImgUrl"`
	CatalogUserData
	Message   string    `json:"message"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// CatalogUserData is an item's nine free fields, userData1–9 on the wire, shared by
// the item and its form.
type CatalogUserData struct {
	UserData1 string `json:"userData1"`
	UserData2 string `json:"userData2"`
	UserData3 string `json:"userData3"`
	UserData4 string `json:"userData4"`
	UserData5 string `json:"userData5"`
	UserData6 string `json:"userData6"`
	UserData7 string `json:"userData7"`
	UserData8 string `json:"userData8"`
	UserData9 string `json:"userData9"`
}

// UserData returns userData1–9 in order.
func (u CatalogUserData) UserData() [9]string {
	return [9]string{u.UserData1, u.UserData2, u.UserData3, u.UserData4, u.UserData5,
		u.UserData6, u.UserData7, u.UserData8, u.UserData9}
}

// UserDataFields returns pointers to userData1–9 in order, for filling or cleaning them.
func (u *CatalogUserData) UserDataFields() [9]*string {
	return [9]*string{&u.UserData1, &u.UserData2, &u.UserData3, &u.UserData4, &u.UserData5,
		&u.UserData6, &u.UserData7, &u.UserData8, &u.UserData9}
}

// CatalogItemInput is the catalog item form. Values are reais (at most two decimals).
type CatalogItemInput struct {
	ItemName      string  `json:"itemName"`
	Description   string  `json:"description"`
	Manufacturer  string  `json:"manufacturer"`
	Dimensions    string  `json:"dimensions"`
	UnitName      string  `json:"unitName"`
	Pax           int     `json:"pax"`
	CategoryID    ID      `json:"categoryId"`
	Order         int     `json:"order"`
	BaseValue     float64 `json:"baseValue"`
	DeliveryValue float64 `json:"deliveryValue"`
	ProductImg    string  `json:"productImg"`
	CatalogUserData
}

// Cents converts reais to integer cents: ok is false for a negative, non-finite or
// too large value, or one with more than two decimals.
func Cents(reais float64) (int64, bool) {
	if math.IsNaN(reais) || math.IsInf(reais, 0) || reais < 0 || reais*100 > CatalogMaxCents {
		return 0, false
	}
	c := math.Round(reais * 100)
	if math.Abs(c-reais*100) > 1e-6 {
		return 0, false
	}
	return int64(c), true
}

// ValidateCatalogItem: itemName required, 1 to 100, single line; description
// multi-line up to 4096; manufacturer, dimensions, unitName and userData1–9 single
// line up to 200; pax 0 to 100000; order 0 to 1000000; baseValue and deliveryValue
// 0 to 1e9 reais with at most two decimals; categoryId ≥ 0 (0 is none); productImg an
// http(s) address or a stored media path (IsStoredMediaPath), up to 2048. That a
// stored path is an image of the tenant is checked where the media store is known.
func ValidateCatalogItem(in CatalogItemInput) (CatalogItemInput, error) {
	out := in
	out.ItemName = strings.TrimSpace(in.ItemName)
	out.Description = strings.TrimSpace(in.Description)
	out.Manufacturer = strings.TrimSpace(in.Manufacturer)
	out.Dimensions = strings.TrimSpace(in.Dimensions)
	out.UnitName = strings.TrimSpace(in.UnitName)
	out.ProductImg = strings.TrimSpace(in.ProductImg)
	f := fieldErrors{}
	f.text("itemName", out.ItemName, true, 1, CatalogNameMax)
	f.longText("description", out.Description, false, LongTextMax)
	f.text("manufacturer", out.Manufacturer, false, 0, CatalogFieldMax)
	f.text("dimensions", out.Dimensions, false, 0, CatalogFieldMax)
	f.text("unitName", out.UnitName, false, 0, CatalogFieldMax)
	ud := out.UserDataFields()
	for i, p := range ud {
		*p = strings.TrimSpace(*p)
		f.text("userData"+strconv.Itoa(i+1), *p, false, 0, CatalogFieldMax)
	}
	if out.Pax < 0 || out.Pax > CatalogPaxMax {
		f.add("pax", MsgInvalidValue)
	}
	if out.Order < 0 || out.Order > CatalogOrderMax {
		f.add("order", MsgInvalidValue)
	}
	if _, ok := Cents(out.BaseValue); !ok {
		f.add("baseValue", MsgInvalidValue)
	}
	if _, ok := Cents(out.DeliveryValue); !ok {
		f.add("deliveryValue", MsgInvalidValue)
	}
	f.id("categoryId", out.CategoryID, false)
	if out.ProductImg != "" {
		switch {
		case runeLen(out.ProductImg) > URLMax || !singleLine(out.ProductImg):
			f.add("productImg", MsgInvalidValue)
		case strings.HasPrefix(out.ProductImg, "https://"), strings.HasPrefix(out.ProductImg, "http://"),
			IsStoredMediaPath(out.ProductImg):
		default:
			f.add("productImg", MsgInvalidValue)
		}
	}
	return finish(in, out, f)
}

// IsStoredMediaPath reports whether p has the form of a media store path,
// "<companyId>/<file>" with a file name of letters, digits, '.', '-' and '_' that is
// not "." or "..".
func IsStoredMediaPath(p string) bool {
	company, file, ok := strings.Cut(p, "/")
	if !ok || company == "" || file == "" || file == "." || file == ".." || len(p) > 300 {
		return false
	}
	for _, r := range company {
		if r < '0' || r > '9' {
			return false
		}
	}
	for _, r := range file {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// FormatBRL writes cents as Brazilian reais the way the browser's
// Intl.NumberFormat('pt-BR', {style: 'currency', currency: 'BRL'}) does:
// "R$ 1.234,56" with a no-break space after the symbol.
func FormatBRL(cents int64) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	whole := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(r)
	}
	frac := cents % 100
	s := "R$\u00a0" + b.String() + "," + string(rune('0'+frac/10)) + string(rune('0'+frac%10))
	if neg {
		s = "-" + s
	}
	return s
}

// RenderCatalogTemplate fills a category template for an item. The variables are
// {{itemName}}, {{description}}, {{manufacturer}}, {{dimensions}}, {{unitName}},
// {{pax}}, {{categoryName}}, {{displayName}}, {{baseValue}} and {{deliveryValue}}
// (in BRL, "R$ 1.234,56"), {{totalValue}} (their sum, in BRL) and {{userData1}} to
// {{userData9}}. An unknown variable is left as written. An empty template renders
// as the item's name, a line break and its base value.
func RenderCatalogTemplate(template string, it CatalogItem, c *Category) string {
	base, _ := Cents(it.BaseValue)
	delivery, _ := Cents(it.DeliveryValue)
	if strings.TrimSpace(template) == "" {
		return it.ItemName + "\n" + FormatBRL(base)
	}
	vars := map[string]string{
		"itemName":      it.ItemName,
		"description":   it.Description,
		"manufacturer":  it.Manufacturer,
		"dimensions":    it.Dimensions,
		"unitName":      it.UnitName,
		"pax":           strconv.Itoa(it.Pax),
		"baseValue":     FormatBRL(base),
		"deliveryValue": FormatBRL(delivery),
		"totalValue":    FormatBRL(base + delivery),
	}
	if c != nil {
		vars["categoryName"] = c.CategoryName
		vars["displayName"] = c.DisplayName
	}
	for i, v := range it.UserData() {
		vars["userData"+strconv.Itoa(i+1)] = v
	}
	// One pass, left to right: a value containing "{{…}}" is not expanded again.
	var b strings.Builder
	rest := template
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			b.WriteString(rest)
			break
		}
		name := strings.TrimSpace(rest[i+2 : i+2+j])
		b.WriteString(rest[:i])
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(rest[i : i+2+j+2])
		}
		rest = rest[i+2+j+2:]
	}
	return b.String()
}

// CatalogQuery selects a page of a list ordered by order then name. Search matches
// names (and, for items, description, manufacturer and the category's name), case and
// accents ignored; a leading '#' or '@' (the composer's triggers) is dropped.
// ActiveOnly keeps items of active categories and items of none.
type CatalogQuery struct {
	Search     string
	Offset     int
	Limit      int // ≤ 0 means CatalogPageSize
	ActiveOnly bool
}

// CatalogStore keeps a tenant's categories and catalog items. Not-found answers are
// ErrNoCategoryFound and ErrNoCatalogFound (also for another tenant's rows); duplicate
// names ErrCategoryNameDuplicated and ErrCatalogDuplicated.
type CatalogStore interface {
	ListCategories(ctx context.Context, companyID ID, q CatalogQuery) ([]Category, int, bool, error)
	GetCategory(ctx context.Context, companyID, id ID) (Category, error)
	CreateCategory(ctx context.Context, companyID ID, in CategoryInput) (Category, error)
	UpdateCategory(ctx context.Context, companyID, id ID, in CategoryInput) (Category, error)
	DeleteCategory(ctx context.Context, companyID, id ID) error

	ListItems(ctx context.Context, companyID ID, q CatalogQuery) ([]CatalogItem, int, bool, error)
	GetItem(ctx context.Context, companyID, id ID) (CatalogItem, error)
	CreateItem(ctx context.Context, companyID ID, in CatalogItemInput) (CatalogItem, error)
	UpdateItem(ctx context.Context, companyID, id ID, in CatalogItemInput) (CatalogItem, error)
	DeleteItem(ctx context.Context, companyID, id ID) error
}
