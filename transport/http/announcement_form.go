package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"atende/engine"
)

// The announcement form of POST and PUT /announcements as multipart/form-data: text
// fields title, text, priority (1, 2 or 3), status (true/false) and removeMedia
// (true/false), and at most one file under "medias" (like the other media forms),
// "file" or "media". The file goes through the media store, which sniffs its content
// and refuses executables and active content (415 ERR_MEDIA_TYPE_NOT_ALLOWED) and
// files over their type's limit (413 ERR_MEDIA_TOO_LARGE); the whole body is capped
// at MaxUploadBytes (413 ERR_BODY_TOO_LARGE). A refused form keeps nothing.

// Limits of the announcement form.
const (
	maxAnnouncementParts = 16
	// maxAnnouncementField bounds one text field: a text of LongTextMax runes of up
	// to 4 bytes each.
	maxAnnouncementField = 4 * engine.LongTextMax
)

// readAnnouncementForm reads a JSON or multipart announcement form. On any error the
// file stored for it is removed.
func (s *Server) readAnnouncementForm(w http.ResponseWriter, r *http.Request, p engine.Principal) (engine.AnnouncementInput, error) {
	var in engine.AnnouncementInput
	if !isMultipart(r) {
		err := s.decodeJSON(r, &in)
		in.Media = nil // never from a JSON body
		return in, err
	}
	if s.deps.Media == nil {
		return in, engine.Wrap(engine.ErrUnavailable, errors.New("no media store"))
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.deps.maxUploadBytes())
	mr, err := r.MultipartReader()
	if err != nil {
		return in, engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("multipart: %w", err))
	}
	var remove bool
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil && parts >= maxAnnouncementParts {
			_ = part.Close()
			err = engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("more than %d parts", maxAnnouncementParts))
		} else if err == nil {
			err = s.readAnnouncementPart(r.Context(), p, part, &in, &remove)
			_ = part.Close()
		} else {
			err = bodyError(err)
		}
		if err != nil {
			s.discardAnnouncementMedia(r, p, in.Media)
			return engine.AnnouncementInput{}, err
		}
	}
	if remove && in.Media == nil {
		in.Media = &engine.AnnouncementMedia{}
	}
	return in, nil
}

func (s *Server) readAnnouncementPart(ctx context.Context, p engine.Principal, part *multipart.Part, in *engine.AnnouncementInput, remove *bool) error {
	name := part.FormName()
	switch name {
	case "medias", "medias[]", "file", "media":
		if in.Media != nil {
			return fieldError("medias", engine.MsgTooLong)
		}
		f, err := s.deps.Media.Save(ctx, p.CompanyID, part, part.FileName(), part.Header.Get("Content-Type"))
		if err != nil {
			return uploadError(err)
		}
		in.Media = &engine.AnnouncementMedia{Path: f.Path, Name: f.Name}
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(part, maxAnnouncementField+1))
	if err != nil {
		return bodyError(err)
	}
	if len(b) > maxAnnouncementField {
		return fieldError(name, engine.MsgTooLong)
	}
	v := string(b)
	switch name {
	case "title":
		in.Title = v
	case "text":
		in.Text = v
	case "priority":
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fieldError("priority", engine.MsgInvalidValue)
		}
		in.Priority = n
	case "status":
		b, err := formBool(name, v)
		if err != nil {
			return err
		}
		in.Status = &b
	case "removeMedia":
		b, err := formBool(name, v)
		if err != nil {
			return err
		}
		*remove = b
	}
	return nil
}

// presentAnnouncement replaces the stored attachment path by a signed URL.
func (s *Server) presentAnnouncement(a engine.Announcement) engine.Announcement {
	if a.MediaPath == "" || s.deps.Media == nil {
		return a
	}
	if !strings.HasPrefix(a.MediaPath, strconv.FormatInt(a.CompanyID, 10)+"/") {
		a.MediaPath = "" // not a path of this tenant's media: never signed
		return a
	}
	if u, err := s.deps.Media.NamedURL(a.CompanyID, a.MediaPath, a.MediaName, s.deps.mediaURLTTL()); err == nil {
		a.MediaPath = u
	}
	return a
}

// discardAnnouncementMedia removes a stored attachment file (nil or empty: nothing).
func (s *Server) discardAnnouncementMedia(r *http.Request, p engine.Principal, m *engine.AnnouncementMedia) {
	if m == nil || m.Path == "" {
		return
	}
	s.discardFiles(r, p, []engine.MediaFile{{Path: m.Path}})
}
