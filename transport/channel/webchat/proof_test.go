package webchat

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"

	"atende/engine"
)

// solve finds a nonce for seed, as the widget does (base-36 counter).
func solve(t *testing.T, seed string, bits int) string {
	t.Helper()
	for n := int64(0); n < 1<<30; n++ {
		nonce := strconv.FormatInt(n, 36)
		if proofOK(seed, nonce, bits) {
			return nonce
		}
	}
	t.Fatal("no nonce found")
	return ""
}

func TestZeroBits(t *testing.T) {
	var sum [sha256.Size]byte
	if got := zeroBits(sum); got != 256 {
		t.Fatalf("all zero: %d", got)
	}
	sum[1] = 0x10 // 0000 0000 0001 0000
	if got := zeroBits(sum); got != 11 {
		t.Fatalf("0x00 0x10: %d, want 11", got)
	}
	sum[0] = 0x80
	if got := zeroBits(sum); got != 0 {
		t.Fatalf("0x80: %d, want 0", got)
	}
}

func TestProofOfWorkBeforeFirstMessage(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.ProofOfWorkBits = 10 })
	c := dial(t, e.url("7", ""))
	w := c.expect("welcome")
	if w.Challenge == nil || w.Challenge.Bits != 10 || len(w.Challenge.Seed) != 22 {
		t.Fatalf("a new visitor's welcome: challenge %+v, want 10 bits and a seed", w.Challenge)
	}
	// A first message without the proof is refused and not recorded.
	c.write(map[string]string{"type": "message", "id": "m1", "body": "oi"})
	if f := c.next(); f.Type != "error" || f.Code != string(engine.ErrTooManyAttempts) || f.Limit != "proof" || f.ID != "m1" {
		t.Fatalf("message before the proof: %+v, want ERR_TOO_MANY_ATTEMPTS limit proof", f)
	}
	// A wrong answer is a validation error.
	wrong := "0"
	for proofOK(w.Challenge.Seed, wrong, 10) {
		wrong += "0"
	}
	c.write(map[string]string{"type": "proof", "nonce": wrong})
	if f := c.next(); f.Code != string(engine.ErrValidation) || f.Fields["nonce"] == "" {
		t.Fatalf("wrong proof: %+v, want ERR_VALIDATION on nonce", f)
	}
	// The right one lets the message through.
	c.write(map[string]string{"type": "proof", "nonce": solve(t, w.Challenge.Seed, 10)})
	c.write(map[string]string{"type": "message", "id": "m1", "body": "oi"})
	if f := c.next(); f.Type != "ack" || f.ID != "m1" {
		t.Fatalf("message after the proof: %+v, want ack", f)
	}
	if got := e.visitorsRecorded(); got != 1 {
		t.Fatalf("%d visitors recorded, want 1", got)
	}
	// A proof solved for one socket's seed is worth nothing on another.
	c2 := dial(t, e.url("7", ""))
	w2 := c2.expect("welcome")
	if w2.Challenge == nil || w2.Challenge.Seed == w.Challenge.Seed {
		t.Fatalf("second new visitor's challenge %+v repeats the first", w2.Challenge)
	}
	// A returning visitor with a conversation is asked nothing.
	c3, w3 := e.connect(w.Visitor)
	if w3.Challenge != nil {
		t.Fatalf("returning visitor asked a proof: %+v", w3.Challenge)
	}
	c3.write(map[string]string{"type": "message", "id": "m2", "body": "de novo"})
	f := c3.next()
	if f.Type == "message" && f.ID == "m1" {
		// m1's echo to the visitor's other tabs: it is sent after m1's ack, so c3
		// may have attached in between and get it (a loaded machine).
		f = c3.next()
	}
	if f.Type != "ack" {
		t.Fatalf("returning visitor's message: %+v", f)
	}
}

func TestProofWithoutChallengeRefused(t *testing.T) {
	e := newEnv(t, nil) // no proof of work asked
	c, w := e.connect("")
	if w.Challenge != nil {
		t.Fatalf("challenge %+v with ProofOfWorkBits 0", w.Challenge)
	}
	c.write(map[string]string{"type": "proof", "nonce": "abc"})
	if f := c.next(); f.Code != string(engine.ErrValidation) {
		t.Fatalf("proof without a challenge: %+v, want ERR_VALIDATION", f)
	}
	c.write(map[string]string{"type": "message", "id": "m1", "body": "oi"})
	if f := c.next(); f.Type != "ack" {
		t.Fatalf("message without proof of work asked: %+v", f)
	}
}

func TestParseProofFrame(t *testing.T) {
	cases := []struct {
		name, in string
		want     engine.Code
	}{
		{"ok", `{"type":"proof","nonce":"1z9"}`, ""},
		{"empty nonce", `{"type":"proof","nonce":""}`, engine.ErrValidation},
		{"missing nonce", `{"type":"proof"}`, engine.ErrValidation},
		{"nonce too long", `{"type":"proof","nonce":"` + strings.Repeat("a", 65) + `"}`, engine.ErrValidation},
		{"nonce with a colon", `{"type":"proof","nonce":"a:b"}`, engine.ErrValidation},
		{"nonce a number", `{"type":"proof","nonce":17}`, engine.ErrInvalidJSON},
		{"nonce a list", `{"type":"proof","nonce":["a"]}`, engine.ErrInvalidJSON},
		{"nonce on a message", `{"type":"message","id":"a","body":"b","nonce":"x"}`, engine.ErrValidation},
		{"two nonces", `{"type":"proof","nonce":"a","nonce":"b"}`, engine.ErrInvalidJSON},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseClientFrame([]byte(tc.in))
			if got := engine.CodeOf(err); err != nil && got != tc.want || err == nil && tc.want != "" {
				t.Fatalf("ParseClientFrame(%s) = %+v, %v; want %q", tc.in, f, err, tc.want)
			}
			if tc.want == "" && f.Nonce != "1z9" {
				t.Fatalf("nonce %q", f.Nonce)
			}
		})
	}
}
