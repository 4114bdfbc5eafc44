package webchat

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"math/bits"
)

// MaxProofOfWorkBits bounds Config.ProofOfWorkBits: 2^28 hashes would keep a
// browser busy for minutes.
const MaxProofOfWorkBits = 28

// newSeed is a challenge seed: 128 random bits in base64url.
func newSeed() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// proofOK reports whether SHA-256(seed ":" nonce) starts with at least want zero bits.
func proofOK(seed, nonce string, want int) bool {
	return zeroBits(sha256.Sum256([]byte(seed+":"+nonce))) >= want
}

// zeroBits counts the leading zero bits of sum.
func zeroBits(sum [sha256.Size]byte) int {
	n := 0
	for _, b := range sum {
		if b != 0 {
			return n + bits.LeadingZeros8(b)
		}
		n += 8
	}
	return n
}
