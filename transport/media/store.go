package media

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"atende/engine"
)

// File is a stored media file.
type File = engine.MediaFile

// Store keeps media files under one folder, per tenant. It implements
// engine.MediaStore and http.Handler (ServeHTTP, in handler.go).
type Store struct {
	// static after construction
	cfg      Config
	root     *os.Root // Config.Dir: every file operation goes through it
	log      zerolog.Logger
	basePath string // the path part of Config.BaseURL, without trailing slash
}

var _ engine.MediaStore = (*Store)(nil)

// New validates cfg, creates the media folder if needed and opens it.
func New(cfg Config) (*Store, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("media: create folder %s: %w", cfg.Dir, err)
	}
	root, err := os.OpenRoot(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("media: open folder %s: %w", cfg.Dir, err)
	}
	s := &Store{cfg: cfg, root: root, log: cfg.Logger.With().Str("component", "media").Logger()}
	s.basePath = basePath(cfg.BaseURL)
	return s, nil
}

// Close releases the media folder. Calls after Close fail.
func (s *Store) Close() error { return s.root.Close() }

// limit is the size limit of a media type.
func (s *Store) limit(media string) int64 {
	switch media {
	case engine.MediaImage:
		return s.cfg.MaxImage
	case engine.MediaAudio:
		return s.cfg.MaxAudio
	case engine.MediaVideo:
		return s.cfg.MaxVideo
	default:
		return s.cfg.MaxDocument
	}
}

// Save stores r's content for companyID (see engine.MediaStore). Refusals are
// *engine.Error values: ErrMediaTypeNotAllowed, ErrMediaTooLarge, ErrValidation
// (empty file, no tenant). Nothing of a refused or failed file stays on disk.
func (s *Store) Save(ctx context.Context, companyID engine.ID, r io.Reader, declaredName, declaredType string) (File, error) {
	if companyID <= 0 {
		return File{}, &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"companyId": "Required"}}
	}
	if err := ctx.Err(); err != nil {
		return File{}, fmt.Errorf("media save: %w", err)
	}
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return File{}, fmt.Errorf("media save: read: %w", err)
	}
	head = head[:n]
	if n == 0 {
		return File{}, &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"media": "Required"}}
	}
	k, err := classify(head, declaredType, declaredName)
	if err != nil {
		s.log.Debug().Err(err).Int64("tenant", companyID).Str("declared_type", declaredType).Msg("media refused")
		return File{}, err
	}
	name, ok := cleanName(declaredName, k)
	if !ok {
		return File{}, errNotAllowed("dangerous file name extension")
	}
	limit := s.limit(k.media)
	if int64(n) > limit {
		return File{}, engine.Wrap(engine.ErrMediaTooLarge, fmt.Errorf("%s above %d bytes", k.media, limit))
	}

	dir := strconv.FormatInt(companyID, 10)
	if err := s.root.MkdirAll(dir, 0o750); err != nil {
		return File{}, fmt.Errorf("media save: create tenant folder: %w", err)
	}
	final := dir + "/" + randomName() + k.ext
	part := final + ".part"
	f, err := s.root.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return File{}, fmt.Errorf("media save: create: %w", err)
	}
	size, err := s.write(ctx, f, head, r, limit)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("media save: close: %w", cerr)
	}
	if err == nil {
		err = s.root.Rename(part, final)
	}
	if err != nil {
		if rerr := s.root.Remove(part); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			s.log.Warn().Err(rerr).Str("path", part).Msg("remove partial media file")
		}
		return File{}, err
	}
	return File{Path: final, Name: name, Type: k.media, MIME: k.mime, Size: size}, nil
}

// write copies head and the rest of r into f, at most limit bytes in all, and syncs.
func (s *Store) write(ctx context.Context, f *os.File, head []byte, r io.Reader, limit int64) (int64, error) {
	if _, err := f.Write(head); err != nil {
		return 0, fmt.Errorf("media save: write: %w", err)
	}
	rest := limit - int64(len(head))
	n, err := io.Copy(f, io.LimitReader(ctxReader{ctx: ctx, r: r}, rest+1))
	size := int64(len(head)) + n
	if err != nil {
		return size, fmt.Errorf("media save: copy: %w", err)
	}
	if n > rest {
		return size, engine.Wrap(engine.ErrMediaTooLarge, fmt.Errorf("above %d bytes", limit))
	}
	if err := f.Sync(); err != nil {
		return size, fmt.Errorf("media save: sync: %w", err)
	}
	return size, nil
}

// ctxReader stops reading once ctx is done (a client that went away mid-upload).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Open reads a stored file of companyID (see engine.MediaStore).
func (s *Store) Open(ctx context.Context, companyID engine.ID, p string) (io.ReadSeekCloser, File, error) {
	if err := ctx.Err(); err != nil {
		return nil, File{}, fmt.Errorf("media open: %w", err)
	}
	file, ok := splitPath(companyID, p)
	if !ok {
		return nil, File{}, engine.Wrap(engine.ErrNotFound, fmt.Errorf("media open: malformed path %q", p))
	}
	f, info, err := s.openFile(companyID, file)
	if err != nil {
		return nil, File{}, err
	}
	k := kindOf(file)
	return f, File{Path: p, Name: file, Type: k.media, MIME: k.mime, Size: info.Size()}, nil
}

// openFile opens <companyID>/<file> for reading; a missing file (or a folder) is
// ErrNotFound.
func (s *Store) openFile(companyID engine.ID, file string) (*os.File, fs.FileInfo, error) {
	name := strconv.FormatInt(companyID, 10) + "/" + file
	f, err := s.root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, engine.Wrap(engine.ErrNotFound, err)
	}
	if escapes(err) { // a symlink planted in the folder: never followed
		s.log.Warn().Err(err).Str("path", name).Msg("media file escapes the media folder")
		return nil, nil, engine.Wrap(engine.ErrNotFound, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("media open %s: %w", name, err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("media stat %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, engine.Wrap(engine.ErrNotFound, fmt.Errorf("media open %s: not a regular file", name))
	}
	return f, info, nil
}

// escapes reports whether err is os.Root's refusal of a path that leads outside it.
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}

// fileNameRE is the only shape of a stored file's name: Save's random name and one
// of the extensions of kinds. ".part" files never match.
var fileNameRE = regexp.MustCompile(`^[0-9a-f]{32}\.[a-z0-9]{1,5}$`)

// splitPath checks that p is "<companyID>/<stored file name>" and returns the name.
func splitPath(companyID engine.ID, p string) (string, bool) {
	prefix := strconv.FormatInt(companyID, 10) + "/"
	file, ok := strings.CutPrefix(p, prefix)
	if !ok || companyID <= 0 || !fileNameRE.MatchString(file) {
		return "", false
	}
	if _, known := kinds[path.Ext(file)]; !known {
		return "", false
	}
	return file, true
}

// kindOf is the kind a stored file name's extension says.
func kindOf(file string) kind {
	if k, ok := kinds[path.Ext(file)]; ok {
		return k
	}
	return kinds[".bin"]
}

// randomName is 128 random bits in hex.
func randomName() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// Remove deletes a stored file of companyID: the files of a refused form, or an
// attachment replaced or deleted with its row. A malformed path, another tenant's
// path and a missing file are ErrNotFound; nothing outside the media folder is ever
// touched (os.Root).
func (s *Store) Remove(ctx context.Context, companyID engine.ID, p string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("media remove: %w", err)
	}
	file, ok := splitPath(companyID, p)
	if !ok {
		return engine.Wrap(engine.ErrNotFound, fmt.Errorf("media remove: malformed path %q", p))
	}
	name := strconv.FormatInt(companyID, 10) + "/" + file
	err := s.root.Remove(name)
	if errors.Is(err, fs.ErrNotExist) || escapes(err) {
		return engine.Wrap(engine.ErrNotFound, err)
	}
	if err != nil {
		return fmt.Errorf("media remove %s: %w", name, err)
	}
	return nil
}
