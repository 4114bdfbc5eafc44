package media

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"atende/engine"
)

// URL is a signed link to a stored file of companyID, valid for at least ttl (see
// engine.MediaStore). p is a File.Path. The link is
// <BaseURL>/<exp>.<sig>[.<base64url download name>]/<companyId>/<file>: the grant sits
// in a path segment of its own, so the URL ends in the stored file's extension
// (".jpg"), as clients that tell images by their URL expect. Expiries are rounded up to a step of ttl/8
// (between 1 s and 1 h), so the URLs of one file built close together are equal and
// browsers cache them.
func (s *Store) URL(companyID engine.ID, p string, ttl time.Duration) (string, error) {
	return s.NamedURL(companyID, p, "", ttl)
}

// NamedURL is URL with the name a download is offered under (Content-Disposition).
func (s *Store) NamedURL(companyID engine.ID, p, name string, ttl time.Duration) (string, error) {
	file, ok := splitPath(companyID, p)
	if !ok {
		return "", engine.Wrap(engine.ErrNotFound, fmt.Errorf("media url: malformed path %q", p))
	}
	if ttl <= 0 {
		return "", fmt.Errorf("media url: ttl %s is not positive", ttl)
	}
	step := min(max(ttl/8, time.Second), time.Hour)
	end := s.cfg.Now().Add(ttl)
	exp := (end.Unix() + int64(step/time.Second) - 1) / int64(step/time.Second) * int64(step/time.Second)
	expS := strconv.FormatInt(exp, 10)
	cid := strconv.FormatInt(companyID, 10)
	grant := expS + "." + s.sign(cid, file, expS, name)
	if name != "" {
		grant += "." + base64.RawURLEncoding.EncodeToString([]byte(name))
	}
	return s.cfg.BaseURL + "/" + grant + "/" + cid + "/" + file, nil
}

// maxGrantLen bounds the grant segment of a media URL: expiry, signature and a
// download name of at most a few hundred bytes.
const maxGrantLen = 1024

// parseGrant splits a URL's grant segment "<exp>.<sig>[.<base64url name>]".
func parseGrant(g string) (exp, sig, name string, ok bool) {
	if len(g) > maxGrantLen {
		return "", "", "", false
	}
	parts := strings.Split(g, ".")
	switch len(parts) {
	case 2:
		return parts[0], parts[1], "", true
	case 3:
		b, err := base64.RawURLEncoding.Strict().DecodeString(parts[2])
		if err != nil || len(b) == 0 {
			return "", "", "", false
		}
		return parts[0], parts[1], string(b), true
	}
	return "", "", "", false
}

// sign is the URL signature: HMAC-SHA256 over the tenant, the file, the expiry and
// the download name, base64url without padding.
func (s *Store) sign(cid, file, exp, name string) string {
	m := hmac.New(sha256.New, s.cfg.Secret)
	m.Write([]byte("atende-media-v1\x00" + cid + "/" + file + "\x00" + exp + "\x00" + name))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// verify checks a request's expiry and signature in constant time.
func (s *Store) verify(cid, file, exp, name, sig string) bool {
	if len(exp) == 0 || len(exp) > 12 || strings.Trim(exp, "0123456789") != "" {
		return false
	}
	e, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || s.cfg.Now().Unix() > e {
		return false
	}
	want := s.sign(cid, file, exp, name)
	return hmac.Equal([]byte(sig), []byte(want))
}

// basePath is the path part of a BaseURL (validated by Config.withDefaults).
func basePath(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return strings.TrimRight(u.Path, "/")
}
