package media

import (
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"atende/engine"
)

// ServeHTTP serves a stored file by signed URL:
// GET|HEAD <BaseURL path>/<exp>.<sig>[.<base64url name>]/<companyId>/<file>, or the
// earlier form <BaseURL path>/<companyId>/<file>?exp=<unix>&sig=<hmac>[&n=<name>].
// Mount the Store at "<BaseURL path>/" (e.g. mux.Handle("/media/", store)); it reads
// r.URL.Path whole, so do not strip the prefix.
func (s *Store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, engine.ErrValidation)
		return
	}
	grant, rest, hasGrant := s.cutGrant(r.URL.Path)
	cid, file, ok := s.parse(rest)
	if !ok {
		writeError(w, http.StatusNotFound, engine.ErrNotFound)
		return
	}
	var exp, sig, name string
	q := r.URL.Query()
	if hasGrant {
		// The grant is all the authorisation: no query parameter may add to it.
		if exp, sig, name, ok = parseGrant(grant); !ok || len(q) > 0 {
			writeError(w, http.StatusForbidden, engine.ErrNoPermission)
			return
		}
	} else {
		// URLs of the earlier query form, still valid until they expire.
		exp, sig, name = single(q, "exp"), single(q, "sig"), single(q, "n")
		if len(q["exp"]) != 1 || len(q["sig"]) != 1 || len(q["n"]) > 1 {
			writeError(w, http.StatusForbidden, engine.ErrNoPermission)
			return
		}
	}
	if !s.verify(strconv.FormatInt(cid, 10), file, exp, name, sig) {
		writeError(w, http.StatusForbidden, engine.ErrNoPermission)
		return
	}
	f, info, err := s.openFile(cid, file)
	if err != nil {
		if errors.Is(err, engine.E(engine.ErrNotFound)) {
			writeError(w, http.StatusNotFound, engine.ErrNotFound)
			return
		}
		s.log.Error().Err(err).Int64("tenant", cid).Msg("serve media")
		writeError(w, http.StatusInternalServerError, engine.ErrInternal)
		return
	}
	defer f.Close()

	k := kindOf(file)
	disposition := "inline"
	if k.media == engine.MediaDocument {
		disposition = "attachment"
	}
	download := file
	if name != "" {
		if clean, ok := cleanName(name, k); ok {
			download = clean
		}
	}
	h.Set("Content-Type", k.mime)
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": download}))
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	h.Set("Referrer-Policy", "no-referrer")
	if e, err := strconv.ParseInt(exp, 10, 64); err == nil {
		if left := e - s.cfg.Now().Unix(); left > 0 {
			h.Set("Cache-Control", "private, max-age="+strconv.FormatInt(left, 10))
		}
	}
	http.ServeContent(w, r, "", info.ModTime(), f)
}

// cutGrant takes the grant segment off a request path: "<base>/<grant>/<cid>/<file>"
// gives the grant and "<base>/<cid>/<file>". A path of the earlier form
// ("<base>/<cid>/<file>", the grant in the query) is returned whole, hasGrant false.
func (s *Store) cutGrant(p string) (grant, rest string, hasGrant bool) {
	after, ok := strings.CutPrefix(p, s.basePath+"/")
	if !ok || strings.Count(after, "/") != 2 {
		return "", p, false
	}
	grant, tail, _ := strings.Cut(after, "/")
	return grant, s.basePath + "/" + tail, true
}

// parse splits a request path into its tenant and stored file name. Anything but
// exactly "<base>/<canonical positive id>/<stored name>" is refused: no dot segments,
// no extra slashes, no encoded separators survive, and the file name must have the
// shape Save gives.
func (s *Store) parse(p string) (engine.ID, string, bool) {
	rest, ok := strings.CutPrefix(p, s.basePath+"/")
	if !ok {
		return 0, "", false
	}
	cidS, file, ok := strings.Cut(rest, "/")
	if !ok || len(cidS) == 0 || len(cidS) > 18 || cidS[0] == '0' || strings.Trim(cidS, "0123456789") != "" {
		return 0, "", false
	}
	cid, err := strconv.ParseInt(cidS, 10, 64)
	if err != nil || cid <= 0 {
		return 0, "", false
	}
	if _, ok := splitPath(cid, rest); !ok {
		return 0, "", false
	}
	return cid, file, true
}

// single is the only value of a query parameter ("" when absent).
func single(q map[string][]string, key string) string {
	if v := q[key]; len(v) == 1 {
		return v[0]
	}
	return ""
}

// writeError answers {"error":code,"message":code}, the REST API's error shape.
func writeError(w http.ResponseWriter, status int, code engine.Code) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"error":"` + string(code) + `","message":"` + string(code) + `"}`))
}
