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

// localTries bounds how many random visitor ids issueToken draws looking for one
// whose messages this node routes itself (Config.RoutesHere). With a third of a
// connection's partitions on this node, 16 draws miss all of them once in 650
// visitors; a node hosting none of them gives up after 16 cheap draws.
const localTries = 16

// issueToken makes a new visitor of connection conn. In a cluster it prefers a
// visitor id whose messages this node routes itself (Config.RoutesHere): the
// visitor's socket is here, and its messages then reach their inbound partition
// without crossing to another node. The id stays 128 random bits drawn from
// crypto/rand; the choice among a few draws takes at most log2(localTries) bits
// of them, and the token's signature, not the id's secrecy, is what proves it.
func (s *Server) issueToken(conn engine.ID) (token, visitorID string) {
	for i := 0; ; i++ {
		var b [16]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
		visitorID = base64.RawURLEncoding.EncodeToString(b[:])
		if s.cfg.RoutesHere == nil || i == localTries-1 || s.cfg.RoutesHere(conn, NumberPrefix+visitorID) {
			break
		}
	}
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
