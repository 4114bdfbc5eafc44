package media

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// Default size limits per media type, the ones WhatsApp applies to images and audio.
const (
	DefaultMaxImage    = 16 << 20
	DefaultMaxAudio    = 16 << 20
	DefaultMaxVideo    = 64 << 20
	DefaultMaxDocument = 100 << 20
)

// Config configures New. Every zero value means the documented default.
type Config struct {
	// Dir is the media folder, created if missing. Zero: "./data/media".
	Dir string
	// Secret signs media URLs (HMAC-SHA256). Required, at least 32 bytes. Rotating it
	// invalidates every URL handed out (clients fetch fresh ones with the messages).
	Secret []byte
	// BaseURL prefixes the URLs that URL and NamedURL build, and its path is where
	// ServeHTTP answers (mount the Store there with a trailing slash: "/media/").
	// It may be absolute ("https://atende.example.com/media") when URLs are handed to
	// providers that fetch media by link. Zero: "/media".
	BaseURL string
	// Per-type size limits in bytes. Zero: DefaultMaxImage, DefaultMaxAudio,
	// DefaultMaxVideo, DefaultMaxDocument.
	MaxImage    int64
	MaxAudio    int64
	MaxVideo    int64
	MaxDocument int64
	// Logger receives the store's logs (files refused, files that vanished).
	// Zero value: logs nothing.
	Logger zerolog.Logger
	// Now is the clock that signs and checks expiries. Nil: time.Now.
	Now func() time.Time
}

// withDefaults returns c with zero values replaced by defaults, or an error for
// values that cannot work.
func (c Config) withDefaults() (Config, error) {
	if len(c.Secret) < 32 {
		return c, errors.New("media config: Secret must be at least 32 bytes")
	}
	c.Secret = append([]byte(nil), c.Secret...)
	if c.Dir == "" {
		c.Dir = "./data/media"
	}
	if c.BaseURL == "" {
		c.BaseURL = "/media"
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	u, err := url.Parse(c.BaseURL)
	if err != nil || u.RawQuery != "" || u.Fragment != "" || !strings.HasPrefix(u.Path, "/") {
		return c, fmt.Errorf("media config: BaseURL %q must be a path or an absolute URL without query", c.BaseURL)
	}
	def := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.MaxImage, DefaultMaxImage)
	def(&c.MaxAudio, DefaultMaxAudio)
	def(&c.MaxVideo, DefaultMaxVideo)
	def(&c.MaxDocument, DefaultMaxDocument)
	for name, v := range map[string]int64{"MaxImage": c.MaxImage, "MaxAudio": c.MaxAudio, "MaxVideo": c.MaxVideo, "MaxDocument": c.MaxDocument} {
		if v < 0 {
			return c, fmt.Errorf("media config: %s %d is negative", name, v)
		}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}
