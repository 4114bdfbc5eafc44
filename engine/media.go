package engine

import (
	"context"
	"io"
	"time"
)

// Media files: what attendants upload with a message and what channels download
// from providers. transport/media implements MediaStore on the local disk.
//
// The declared name and type of an upload are never trusted: the store sniffs the
// content, refuses executables and active content (HTML, SVG, scripts) with
// ErrMediaTypeNotAllowed and files over the limit of their type with
// ErrMediaTooLarge, and keeps nothing of a refused file.

// MediaFile is a stored media file.
type MediaFile struct {
	// Path is where the file lives relative to the media folder, as
	// "<companyId>/<random name>.<ext>"; Message and InboundMessage keep it as their
	// MediaPath.
	Path string
	// Name is the sender's file name, cleaned of folders and control characters
	// (never empty: a file without one is named after its type).
	Name string
	// Type is MediaImage, MediaAudio, MediaVideo or MediaDocument, from the content.
	Type string
	// MIME is the sniffed content type the file is served with.
	MIME string
	Size int64
}

// MediaStore keeps media files per tenant.
type MediaStore interface {
	// Save stores what r holds for companyID. declaredName and declaredType are the
	// sender's claims: the name is kept for display, the type only breaks ties the
	// content leaves open (an MP4 or WebM container holding sound alone is audio).
	Save(ctx context.Context, companyID ID, r io.Reader, declaredName, declaredType string) (MediaFile, error)
	// Open reads a stored file of companyID; ErrNotFound if there is none. The
	// MediaFile it answers is named after the stored file (the sender's name is the
	// message's MediaName, not kept by the store).
	Open(ctx context.Context, companyID ID, path string) (io.ReadSeekCloser, MediaFile, error)
	// URL is a link to the file that works without an Authorization header until
	// ttl has passed (an <img src>, a provider fetching media by link).
	URL(companyID ID, path string, ttl time.Duration) (string, error)
	// NamedURL is URL with the file name a download is saved under (documents keep
	// the sender's name: the message's MediaName).
	NamedURL(companyID ID, path, name string, ttl time.Duration) (string, error)
}
