package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"atende/engine"
)

// Limits of a multipart send beyond MaxMessageFiles and TicketDeps.MaxUploadBytes.
const (
	// maxUploadParts bounds the parts of one form, files and fields together.
	maxUploadParts = 64
	// maxFieldBytes bounds one text field: a body of MaxMessageBodyRunes runes of up
	// to 4 bytes each.
	maxFieldBytes = 4 * MaxMessageBodyRunes
)

// mediaRemover is implemented by media stores that can delete a stored file. Files
// stored for a send that is then refused are removed through it; a store without it
// keeps them (unreferenced; nothing links to them).
type mediaRemover interface {
	Remove(ctx context.Context, companyID engine.ID, path string) error
}

// upload is what a multipart send carried.
type upload struct {
	body   string   // the first body field
	bodies []string // every body field, in order
	quoted engine.ID
	files  []engine.MediaFile
}

// sendFiles: multipart POST /messages/{ticketId} with fields medias (files, at most
// MaxMessageFiles), body, quotedMsgId or quotedMsg ({"id":…} or an id) and fromMe
// (ignored). Each file becomes one message, in order; body is the caption of the
// first (with one body per file, as whaticket sends them, each file gets its own; a
// body equal to the file's name is no caption), and a document without a caption is
// captioned with its file name. Without
// files, body is sent as a text message (required). Recorded audio (audio/webm,
// audio/ogg, mp3…) is a file like any other: its type comes from its content.
//
// Every file is stored (and so checked: ERR_MEDIA_TYPE_NOT_ALLOWED 415,
// ERR_MEDIA_TOO_LARGE 413, an empty file ERR_VALIDATION) before any message is sent,
// so a refused file, a bad field or a body over MaxUploadBytes (ERR_BODY_TOO_LARGE)
// sends nothing, and the files already stored for the request are removed when the
// store can (mediaRemover). The ticket is checked first, so nothing is stored for a
// ticket the caller's tenant does not have. If the ticket refuses midway (closed by
// someone meanwhile), the messages before stay sent and the error is answered.
//
// The answer is 201 and the message, or an array of them when several files came.
func (s *Server) sendFiles(w http.ResponseWriter, r *http.Request, p engine.Principal, ticketID engine.ID) error {
	if s.deps.Media == nil {
		return engine.Wrap(engine.ErrUnavailable, errors.New("no media store"))
	}
	if _, err := s.deps.TicketQueries.GetTicket(r.Context(), p.CompanyID, ticketID); err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.deps.maxUploadBytes())
	up, err := s.readUpload(r, p)
	if err != nil {
		return err
	}
	outs := up.outgoing()
	for _, b := range append([]string{up.body}, up.bodies...) {
		if err := checkBody(b, len(up.files) == 0); err != nil {
			s.discardMedia(r, p, outs)
			return err
		}
	}
	msgs, n, err := s.send(r, p, ticketID, outs)
	if err != nil {
		s.discardMedia(r, p, outs[n:])
		return err
	}
	if len(msgs) == 1 {
		writeJSON(w, http.StatusCreated, msgs[0])
	} else {
		writeJSON(w, http.StatusCreated, msgs)
	}
	return nil
}

// readUpload reads the form, storing each file as it streams in. On any error the
// files stored so far are discarded.
func (s *Server) readUpload(r *http.Request, p engine.Principal) (up upload, err error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return up, engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("multipart: %w", err))
	}
	defer func() {
		if err != nil {
			outs := make([]outgoing, len(up.files))
			for i, f := range up.files {
				outs[i].mediaPath = f.Path
			}
			s.discardMedia(r, p, outs)
		}
	}()
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return up, nil
		}
		if err != nil {
			return up, bodyError(err)
		}
		if parts >= maxUploadParts {
			_ = part.Close()
			return up, engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("more than %d parts", maxUploadParts))
		}
		err = s.readPart(r.Context(), p, part, &up)
		_ = part.Close()
		if err != nil {
			return up, err
		}
	}
}

// readPart handles one part of the form. Its file name and content type are the
// client's claims, which the media store only uses for display and tie-breaks.
func (s *Server) readPart(ctx context.Context, p engine.Principal, part *multipart.Part, up *upload) error {
	switch name := part.FormName(); name {
	case "medias":
		if len(up.files) >= MaxMessageFiles {
			return fieldError("medias", engine.MsgTooLong)
		}
		f, err := s.deps.Media.Save(ctx, p.CompanyID, part, part.FileName(), part.Header.Get("Content-Type"))
		if err != nil {
			return uploadError(err)
		}
		up.files = append(up.files, f)
		return nil
	case "body", "quotedMsgId", "quotedMsg":
		b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
		if err != nil {
			return bodyError(err)
		}
		if len(b) > maxFieldBytes {
			if name == "body" {
				return fieldError("body", engine.MsgTooLong)
			}
			return fieldError(name, engine.MsgInvalidValue)
		}
		if name == "body" {
			if len(up.bodies) == 0 {
				up.body = string(b)
			}
			up.bodies = append(up.bodies, string(b))
			return nil
		}
		id, ok := formID(string(b))
		if !ok {
			return fieldError(name, engine.MsgInvalidValue)
		}
		up.quoted = id
		return nil
	default:
		// fromMe, read, imagetype and anything unknown: read past.
		if _, err := io.Copy(io.Discard, part); err != nil {
			return bodyError(err)
		}
		return nil
	}
}

// formID reads an id form field: "", "null", a number, or a JSON object {"id": …}.
func formID(raw string) (engine.ID, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return 0, true
	}
	var f idField
	if strings.HasPrefix(raw, "{") {
		var q quotedRef
		if err := json.Unmarshal([]byte(raw), &q); err != nil {
			return 0, false
		}
		f = q.ID
	} else if err := f.UnmarshalJSON([]byte(raw)); err != nil {
		return 0, false
	}
	return f.ID, !f.Bad
}

// outgoing turns the upload into the messages to send.
func (up upload) outgoing() []outgoing {
	if len(up.files) == 0 {
		return []outgoing{{body: up.body, quoted: up.quoted}}
	}
	// whaticket's composer appends a body per file, the file's name: several files
	// with as many bodies pair them in order.
	perFile := len(up.files) > 1 && len(up.bodies) == len(up.files)
	outs := make([]outgoing, len(up.files))
	for i, f := range up.files {
		o := outgoing{mediaType: f.Type, mediaPath: f.Path}
		if i == 0 {
			o.body, o.quoted = up.body, up.quoted
		}
		if perFile {
			o.body = up.bodies[i]
		}
		// A body that is the file's own name labels it (whaticket's form) rather
		// than captions it: an image is not sent captioned with "IMG_0042.jpg".
		if strings.TrimSpace(o.body) == f.Name {
			o.body = ""
		}
		if strings.TrimSpace(o.body) == "" && f.Type == engine.MediaDocument {
			o.body = f.Name
		}
		outs[i] = o
	}
	return outs
}

// discardMedia removes the stored files of outs that were not sent, when the media
// store can remove files.
func (s *Server) discardMedia(r *http.Request, p engine.Principal, outs []outgoing) {
	rm, ok := s.deps.Media.(mediaRemover)
	for _, o := range outs {
		if o.mediaPath == "" {
			continue
		}
		if !ok {
			s.reqLog(r).Debug().Str("path", o.mediaPath).Msg("media stored for a refused send is kept (store cannot remove)")
			continue
		}
		if err := rm.Remove(context.WithoutCancel(r.Context()), p.CompanyID, o.mediaPath); err != nil {
			s.reqLog(r).Warn().Err(err).Str("path", o.mediaPath).Msg("remove media of a refused send")
		}
	}
}

// bodyError maps a failure reading the request body: over the cap is
// ERR_BODY_TOO_LARGE, anything else (a malformed or cut form) ERR_INVALID_JSON, the
// catalogue's code for a body that cannot be read.
func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return engine.Wrap(engine.ErrBodyTooLarge, err)
	}
	return engine.Wrap(engine.ErrInvalidJSON, err)
}

// uploadError maps a media store refusal: its *engine.Error as is, the request cap
// as ERR_BODY_TOO_LARGE, a cut upload as ERR_INVALID_JSON, anything else a 500.
func uploadError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return engine.Wrap(engine.ErrBodyTooLarge, err)
	}
	var e *engine.Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return engine.Wrap(engine.ErrInvalidJSON, err)
	}
	return fmt.Errorf("store media: %w", err)
}
