package webchat

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"

	"atende/engine"
)

// Visitor tokens: "<visitorId>.<signature>". The visitor id is 128 random bits in
// base64url (22 characters); the signature is HMAC-SHA256 with Config.Secret over the
// connection id and the visitor id, cut to 144 bits (24 characters). A token is
// valid only on the connection it was issued for; one that does not verify is
// replaced by a fresh one (a new visitor), never an error.

const (
	visitorIDLen = 22
	tokenSigLen  = 24
	tokenLen     = visitorIDLen + 1 + tokenSigLen
)

// NumberPrefix starts every web chat contact number: "webchat:<visitorId>".
const NumberPrefix = "webchat:"

// issueToken makes a new visitor of connection conn.
func (s *Server) issueToken(conn engine.ID) (token, visitorID string) {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	visitorID = base64.RawURLEncoding.EncodeToString(b[:])
	return visitorID + "." + s.tokenSig(conn, visitorID), visitorID
}

// checkToken returns the visitor id of a token issued for conn.
func (s *Server) checkToken(conn engine.ID, token string) (string, bool) {
	if len(token) != tokenLen || token[visitorIDLen] != '.' {
		return "", false
	}
	vid, sig := token[:visitorIDLen], token[visitorIDLen+1:]
	if !validClientID(vid) {
		return "", false
	}
	if !hmac.Equal([]byte(sig), []byte(s.tokenSig(conn, vid))) {
		return "", false
	}
	return vid, true
}

func (s *Server) tokenSig(conn engine.ID, vid string) string {
	m := hmac.New(sha256.New, s.cfg.Secret)
	m.Write([]byte("atende-webchat-visitor-v1\x00" + strconv.FormatInt(conn, 10) + "\x00" + vid))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// visitorOf is the visitor id of a contact number "webchat:<visitorId>".
func visitorOf(number string) (string, bool) {
	vid, ok := strings.CutPrefix(number, NumberPrefix)
	if !ok || len(vid) != visitorIDLen || !validClientID(vid) {
		return "", false
	}
	return vid, true
}

// randomNodeID names a Server among the nodes of a cluster: 64 random bits in
// base64url (a valid client id).
func randomNodeID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
