package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"atende/engine"
	"atende/transport/jsonapi"
)

// authedFunc is a handler that needs a logged-in principal.
type authedFunc func(w http.ResponseWriter, r *http.Request, p engine.Principal) error

// publicFunc is a handler open to anyone (login, refresh, logout).
type publicFunc func(w http.ResponseWriter, r *http.Request) error

// public adapts a publicFunc: its error is written by writeError.
func (s *Server) public(h publicFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// errorBody is the wire shape of every error answer.
type errorBody struct {
	Error   engine.Code       `json:"error"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// writeError answers err: an *engine.Error with its code and status, anything else as
// a logged 500 ERR_INTERNAL. Causes are logged, never sent.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *engine.Error
	if !errors.As(err, &e) {
		s.reqLog(r).Error().Err(err).Msg("request failed")
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: engine.ErrInternal, Message: string(engine.ErrInternal)})
		return
	}
	status := e.Code.HTTPStatus()
	if status >= 500 {
		s.reqLog(r).Error().Err(err).Str("code", string(e.Code)).Msg("request failed")
	} else if e.Cause != nil {
		s.reqLog(r).Debug().Err(err).Str("code", string(e.Code)).Msg("request refused")
	}
	body := errorBody{Error: e.Code, Message: string(e.Code)}
	if len(e.Fields) > 0 {
		body.Fields = e.Fields
		body.Message = firstFieldMessage(e.Fields)
	}
	writeJSON(w, status, body)
}

// firstFieldMessage is the message of the alphabetically first field, so that the
// toast a client shows is stable.
func firstFieldMessage(fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return fields[keys[0]]
}

// writeJSON answers v as JSON with status (jsonapi.WriteJSON).
func writeJSON(w http.ResponseWriter, status int, v any) { jsonapi.WriteJSON(w, status, v) }

// decodeJSON reads one JSON value from the body into v. A body not declared
// Content-Type: application/json is 415 ERR_UNSUPPORTED_MEDIA_TYPE (security.go,
// requireJSON). The body is capped at
// Config.MaxBodyBytes (ERR_BODY_TOO_LARGE); an empty, malformed or mistyped body, or
// anything after the value, is ERR_INVALID_JSON. Unknown fields are ignored (the web
// app sends whole objects back).
func (s *Server) decodeJSON(r *http.Request, v any) error {
	return decodeJSONLimit(r, v, s.cfg.MaxBodyBytes)
}

func decodeJSONLimit(r *http.Request, v any, limit int64) error {
	return jsonapi.DecodeJSON(r, v, limit)
}

// pathID reads the path value name as a positive id. Anything else answers the
// route's not-found code (notFound[0]) or ERR_NOT_FOUND: "/users/abc" names no user.
func pathID(r *http.Request, name string, notFound ...engine.Code) (engine.ID, error) {
	code := engine.ErrNotFound
	if len(notFound) > 0 {
		code = notFound[0]
	}
	raw := r.PathValue(name)
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, engine.E(code)
	}
	return id, nil
}

// requirePermission answers ERR_NO_PERMISSION unless p may perform action.
func requirePermission(p engine.Principal, action string) error {
	if !p.Can(action) {
		return engine.E(engine.ErrNoPermission)
	}
	return nil
}

// queryString is the trimmed query parameter name ("" when absent).
func queryString(r *http.Request, name string) string {
	return strings.TrimSpace(r.URL.Query().Get(name))
}

// queryInt reads an integer query parameter; absent or empty gives def, anything
// else that is not an integer is ERR_VALIDATION {name: "Invalid number"}.
func queryInt(r *http.Request, name string, def int) (int, error) {
	raw := queryString(r, name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, fieldError(name, engine.MsgInvalidNumber)
	}
	return n, nil
}

// queryBool reads a boolean query parameter ("true"/"false", "1"/"0"); absent or
// empty gives def.
func queryBool(r *http.Request, name string, def bool) (bool, error) {
	raw := queryString(r, name)
	if raw == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		return false, fieldError(name, engine.MsgInvalidValue)
	}
	return b, nil
}

// queryIDs reads a list of ids that may arrive as a JSON array string
// (queueIds=[1,2], as the web app sends list filters), as repeated parameters
// (queueIds=1&queueIds=2), or comma-separated (queueIds=1,2): each value is read by
// parseIDList. Absent, "" and "[]" give nil. The result is sorted and unique.
func queryIDs(r *http.Request, name string) ([]engine.ID, error) {
	var ids []engine.ID
	for _, raw := range r.URL.Query()[name] {
		got, err := parseIDList(raw, name, 0)
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return engine.NormalizeIDs(ids), nil
}

// parseIDList reads one list of ids: a JSON array (elements numbers or numeric
// strings) or a comma-separated list; "" (after trimming) is none (nil). Non-positive
// or non-numeric entries, and empty entries of a comma list, are ERR_VALIDATION
// {field: "Invalid value"}; more than max entries as given (max > 0), duplicates
// included, is {field: "Too Long!"}, before any is parsed. The result is sorted and
// unique (engine.NormalizeIDs).
func parseIDList(raw, field string, max int) ([]engine.ID, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	bad := fieldError(field, engine.MsgInvalidValue)
	var ids []engine.ID
	if strings.HasPrefix(raw, "[") {
		var elems []json.RawMessage
		if err := json.Unmarshal([]byte(raw), &elems); err != nil {
			return nil, bad
		}
		if max > 0 && len(elems) > max {
			return nil, fieldError(field, engine.MsgTooLong)
		}
		for _, e := range elems {
			id, ok := parseIDElem(e)
			if !ok {
				return nil, bad
			}
			ids = append(ids, id)
		}
	} else {
		parts := strings.Split(raw, ",")
		if max > 0 && len(parts) > max {
			return nil, fieldError(field, engine.MsgTooLong)
		}
		for _, part := range parts {
			id, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
			if err != nil || id <= 0 {
				return nil, bad
			}
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return engine.NormalizeIDs(ids), nil
}

func parseIDElem(raw json.RawMessage) (engine.ID, bool) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return 0, false
		}
		n = json.Number(str)
	}
	id, err := strconv.ParseInt(string(n), 10, 64)
	return id, err == nil && id > 0
}

// fieldError is an ERR_VALIDATION for one field.
func fieldError(field, msg string) error {
	return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{field: msg}}
}
