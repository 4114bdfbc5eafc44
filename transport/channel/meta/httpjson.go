package meta

import (
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"atende/engine"
	"atende/transport/jsonapi"
)

// MaxRequest caps the JSON body of the adapters' authenticated routes.
const MaxRequest = 64 << 10

// DecodeJSON reads one JSON value of at most MaxRequest bytes into v with the REST
// API's rules (jsonapi.DecodeJSON): ERR_BODY_TOO_LARGE, or ERR_INVALID_JSON for an
// empty, malformed or mistyped body, or anything after the value.
func DecodeJSON(r *http.Request, v any) error { return jsonapi.DecodeJSON(r, v, MaxRequest) }

// Required answers ERR_VALIDATION naming the empty fields ('Required', spec section
// 5), nil when every field has a value.
func Required(fields map[string]string) error {
	bad := map[string]string{}
	for k, v := range fields {
		if strings.TrimSpace(v) == "" {
			bad[k] = "Required"
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &engine.Error{Code: engine.ErrValidation, Fields: bad}
}

// FlexID is an id a client may send as a JSON number or string ("12", 12, null).
type FlexID int64

// UnmarshalJSON implements json.Unmarshaler.
func (f *FlexID) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*f = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return err
	}
	*f = FlexID(n)
	return nil
}

// ConnectionName fits a provider's display name into the connection name rule
// (engine.NameMin to engine.NameMax characters of single-line text), falling back to
// prefix + id: provider data (a page name, a bot's first name) must never fail the
// request that registers it.
func ConnectionName(name, prefix, id string) string {
	name = oneLine(name, engine.NameMax)
	if len([]rune(name)) < engine.NameMin {
		name = oneLine(prefix+" "+id, engine.NameMax)
	}
	return name
}

// oneLine is s made storable, its control characters and runs of spaces turned into
// one space, cut to max characters.
func oneLine(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, engine.SanitizeText(s))
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = strings.TrimSpace(string(r[:max]))
	}
	return s
}
