package httpapi_test

import "strings"

// signedMediaURL reports whether u is a media URL signed by the server for the stored
// path (or, when path ends in "/", any file under it): /media/<exp>.<sig>/<path>.
func signedMediaURL(u, path string) bool {
	rest, ok := strings.CutPrefix(u, "/media/")
	if !ok {
		return false
	}
	grant, tail, ok := strings.Cut(rest, "/")
	exp, sig, ok2 := strings.Cut(grant, ".")
	if !ok || !ok2 || exp == "" || strings.Trim(exp, "0123456789") != "" || len(sig) < 40 {
		return false
	}
	if strings.HasSuffix(path, "/") {
		return strings.HasPrefix(tail, path) && len(tail) > len(path) && !strings.Contains(tail, "?")
	}
	return tail == path
}
