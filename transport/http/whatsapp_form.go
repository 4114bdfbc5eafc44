package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"atende/engine"
)

// The connection form of POST/PUT /whatsapp (whatsapp.go), multipart or JSON: every
// field's parser lives here, each refusing hostile input with ERR_VALIDATION.

// connForm is a connection form as read: the fields present (set) over the values.
type connForm struct {
	set      map[string]bool
	in       engine.ConnectionInput
	roles    []string           // mediaRoles, in order of the medias files
	medias   []engine.MediaFile // "medias" files
	greeting *engine.MediaFile  // "greetingMedia" file, or a medias file by role
	farewell *engine.MediaFile
	clearG   bool // removeGreetingMedia
	clearF   bool // removeFarewellMedia
}

func (f *connForm) files() []engine.MediaFile {
	out := append([]engine.MediaFile(nil), f.medias...)
	for _, m := range []*engine.MediaFile{f.greeting, f.farewell} {
		if m != nil {
			out = append(out, *m)
		}
	}
	return out
}

// readConnForm reads a multipart or JSON connection form. On any error the files
// stored for it are removed.
func (s *Server) readConnForm(w http.ResponseWriter, r *http.Request, p engine.Principal) (*connForm, error) {
	f := &connForm{set: map[string]bool{}}
	if !isMultipart(r) {
		var b connJSON
		if err := s.decodeJSON(r, &b); err != nil {
			return nil, err
		}
		return f, b.into(f)
	}
	if s.deps.Media == nil {
		return nil, engine.Wrap(engine.ErrUnavailable, errors.New("no media store"))
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.deps.maxUpload())
	err := s.readConnParts(r, p, f)
	if err == nil {
		err = f.assignRoles()
	}
	if err != nil {
		s.discardFiles(r, p, f.files())
		return nil, err
	}
	return f, nil
}

func (s *Server) readConnParts(r *http.Request, p engine.Principal, f *connForm) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("multipart: %w", err))
	}
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return bodyError(err)
		}
		if parts >= maxConnFormParts {
			_ = part.Close()
			return engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("more than %d parts", maxConnFormParts))
		}
		err = s.readConnPart(r.Context(), p, part, f)
		_ = part.Close()
		if err != nil {
			return err
		}
	}
}

func (s *Server) readConnPart(ctx context.Context, p engine.Principal, part *multipart.Part, f *connForm) error {
	name := part.FormName()
	switch name {
	case "medias", "medias[]", "greetingMedia", "farewellMedia":
		if len(f.files()) >= maxConnImages {
			return fieldError("medias", engine.MsgTooLong)
		}
		m, err := s.deps.Media.Save(ctx, p.CompanyID, part, part.FileName(), part.Header.Get("Content-Type"))
		if err != nil {
			return uploadError(err)
		}
		if m.Type != engine.MediaImage {
			f.medias = append(f.medias, m) // discarded by the caller
			return engine.Wrap(engine.ErrMediaTypeNotAllowed, fmt.Errorf("connection image of type %s", m.MIME))
		}
		switch name {
		case "greetingMedia":
			if f.greeting != nil {
				f.medias = append(f.medias, m) // discarded on error
				return fieldError(name, engine.MsgTooLong)
			}
			f.greeting = &m
		case "farewellMedia":
			if f.farewell != nil {
				f.medias = append(f.medias, m)
				return fieldError(name, engine.MsgTooLong)
			}
			f.farewell = &m
		default:
			f.medias = append(f.medias, m)
		}
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(part, maxConnFieldByte+1))
	if err != nil {
		return bodyError(err)
	}
	key := strings.TrimSuffix(name, "[]")
	if len(b) > maxConnFieldByte {
		if key == "greetingMessage" || key == "farewellMessage" || key == "name" || key == "number" {
			return fieldError(key, engine.MsgTooLong)
		}
		return fieldError(key, engine.MsgInvalidValue)
	}
	return f.field(key, string(b))
}

// field sets one text field of a form.
func (f *connForm) field(key, v string) error {
	var err error
	switch key {
	case "name":
		f.in.Name = v
	case "number":
		f.in.Number = v
	case "greetingMessage":
		f.in.GreetingMessage = v
	case "farewellMessage":
		f.in.FarewellMessage = v
	case "channel":
		f.in.Channel = strings.TrimSpace(v)
	case "isDefault":
		f.in.IsDefault, err = formBool(key, v)
	case "outChannel":
		f.in.OutChannel, err = formBool(key, v)
	case "removeGreetingMedia":
		f.clearG, err = formBool(key, v)
	case "removeFarewellMedia":
		f.clearF, err = formBool(key, v)
	case "dailyMax":
		f.in.DailyMax, err = formInt(key, v)
	case "queueIds":
		var ids []engine.ID
		if ids, err = parseQueueIDs(v); err == nil {
			if !f.set[key] {
				f.in.QueueIDs = []engine.ID{}
			}
			f.in.QueueIDs = engine.NormalizeIDs(append(f.in.QueueIDs, ids...))
			if len(f.in.QueueIDs) > maxConnQueueIDs {
				err = fieldError(key, engine.MsgTooLong)
			}
		}
	case "mediaRoles":
		for _, r := range splitList(v) {
			if r != "greeting" && r != "farewell" {
				return fieldError(key, engine.MsgInvalidValue)
			}
			f.roles = append(f.roles, r)
		}
		if len(f.roles) > maxConnImages {
			return fieldError(key, engine.MsgInvalidValue)
		}
		return nil
	default:
		return nil // unknown fields are ignored, like the message form's
	}
	if err == nil {
		f.set[key] = true
	}
	return err
}

// assignRoles gives each "medias" file its role: mediaRoles in order, else the
// first is the greeting image and the second the farewell image.
func (f *connForm) assignRoles() error {
	if len(f.medias) == 0 {
		return nil
	}
	if len(f.roles) > 0 && len(f.roles) != len(f.medias) {
		return fieldError("mediaRoles", engine.MsgInvalidValue)
	}
	rest := f.medias
	f.medias = nil
	for i, m := range rest {
		role := "greeting"
		if len(f.roles) > 0 {
			role = f.roles[i]
		} else if i == 1 || f.greeting != nil {
			role = "farewell"
		}
		slot := &f.greeting
		if role == "farewell" {
			slot = &f.farewell
		}
		if *slot != nil {
			f.medias = append(f.medias, rest[i:]...) // discarded by the caller
			return fieldError("mediaRoles", engine.MsgInvalidValue)
		}
		m := m
		*slot = &m
	}
	return nil
}

// formBool reads a boolean form field: true/false, 1/0, on/off, yes/no; "" is false.
func formBool(key, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "on", "yes":
		return true, nil
	case "false", "0", "off", "no", "", "null", "undefined":
		return false, nil
	}
	return false, fieldError(key, engine.MsgInvalidValue)
}

// formInt reads a non-negative integer form field; "" is 0.
func formInt(key, v string) (int, error) {
	v = strings.TrimSpace(v)
	if v == "" || v == "null" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1_000_000_000 {
		return 0, fieldError(key, engine.MsgInvalidValue)
	}
	return n, nil
}

// splitList reads a list field: a JSON array of strings or a comma-separated list.
func splitList(v string) []string {
	v = strings.TrimSpace(v)
	var out []string
	if strings.HasPrefix(v, "[") {
		if err := json.Unmarshal([]byte(v), &out); err != nil {
			return []string{"\x00"} // refused by the caller
		}
		return out
	}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// parseQueueIDs reads a queueIds field with parseIDList: a JSON array of ids
// (numbers or numeric strings), a single id, or a comma-separated list; "", "null"
// and "[]" are none (an empty, non-nil list). The ids come back sorted and unique;
// more than maxConnQueueIDs entries is 400 ERR_VALIDATION fields.queueIds 'Too
// Long!', anything else malformed fields.queueIds 'Invalid value'.
func parseQueueIDs(v string) ([]engine.ID, error) {
	if strings.TrimSpace(v) == "null" {
		return []engine.ID{}, nil
	}
	ids, err := parseIDList(v, "queueIds", maxConnQueueIDs)
	if err != nil {
		return nil, err
	}
	if ids == nil {
		ids = []engine.ID{}
	}
	return ids, nil
}

// connJSON is the JSON spelling of the connection form. Pointers tell the fields
// present; queueIds and the flags take the form's spellings as well.
type connJSON struct {
	Name                *string         `json:"name"`
	Number              *string         `json:"number"`
	IsDefault           json.RawMessage `json:"isDefault"`
	OutChannel          json.RawMessage `json:"outChannel"`
	DailyMax            json.RawMessage `json:"dailyMax"`
	GreetingMessage     *string         `json:"greetingMessage"`
	FarewellMessage     *string         `json:"farewellMessage"`
	QueueIDs            json.RawMessage `json:"queueIds"`
	Channel             *string         `json:"channel"`
	RemoveGreetingMedia json.RawMessage `json:"removeGreetingMedia"`
	RemoveFarewellMedia json.RawMessage `json:"removeFarewellMedia"`
}

func (b connJSON) into(f *connForm) error {
	for key, v := range map[string]*string{"name": b.Name, "number": b.Number, "greetingMessage": b.GreetingMessage,
		"farewellMessage": b.FarewellMessage, "channel": b.Channel} {
		if v != nil {
			if err := f.field(key, *v); err != nil {
				return err
			}
		}
	}
	for _, kv := range []struct {
		key string
		raw json.RawMessage
	}{{"isDefault", b.IsDefault}, {"outChannel", b.OutChannel}, {"dailyMax", b.DailyMax},
		{"queueIds", b.QueueIDs}, {"removeGreetingMedia", b.RemoveGreetingMedia}, {"removeFarewellMedia", b.RemoveFarewellMedia}} {
		if len(kv.raw) == 0 {
			continue
		}
		v := string(kv.raw)
		if strings.HasPrefix(v, `"`) {
			if err := json.Unmarshal(kv.raw, &v); err != nil {
				return fieldError(kv.key, engine.MsgInvalidValue)
			}
		}
		if err := f.field(kv.key, v); err != nil {
			return err
		}
	}
	return nil
}
