package aiconfig

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// sealPrefix marks a sealed value and its format's version.
const sealPrefix = "v1:"

// ErrUnsealed: a sealed value does not open under this key and tenant (another server
// key, another tenant's row, or a damaged value).
var ErrUnsealed = errors.New("aiconfig: sealed value does not open")

// Sealer encrypts secrets with AES-256-GCM. Safe for concurrent use.
type Sealer struct {
	aead cipher.AEAD
}

// NewSealer derives the AES-256 key from secret (SHA-256 of a label and secret: any
// length of secret works, and the key differs from other uses of the same secret, e.g.
// the JWT signing key). An empty secret is refused.
func NewSealer(secret string) (*Sealer, error) {
	if secret == "" {
		return nil, errors.New("aiconfig: empty sealing secret")
	}
	key := sha256.Sum256([]byte("atende ai-config key v1\x00" + secret))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("aiconfig: cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("aiconfig: gcm: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain for the holder named by aad: "v1:" and the base64 of a random
// nonce and the ciphertext. An empty plain seals to "".
func (s *Sealer) Seal(plain, aad string) (string, error) {
	if plain == "" {
		return "", nil
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("aiconfig: nonce: %w", err)
	}
	out := s.aead.Seal(nonce, nonce, []byte(plain), []byte(aad))
	return sealPrefix + base64.RawStdEncoding.EncodeToString(out), nil
}

// Open decrypts a Seal result for the same aad; "" opens to "". ErrUnsealed for
// anything that does not open.
func (s *Sealer) Open(sealed, aad string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	raw, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return "", ErrUnsealed
	}
	b, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil || len(b) < s.aead.NonceSize()+s.aead.Overhead() {
		return "", ErrUnsealed
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, b[:n], b[n:], []byte(aad))
	if err != nil {
		return "", ErrUnsealed
	}
	return string(plain), nil
}
