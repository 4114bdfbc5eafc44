package actors

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"atende/engine"
)

// TestUnreachedIsUnavailable: a remote sink call that did not reach the actor or
// timed out is ERR_UNAVAILABLE (retry later), keeping its cause; the actor's own
// answers and other errors pass unchanged.
func TestUnreachedIsUnavailable(t *testing.T) {
	validation := engine.E(engine.ErrValidation)
	other := errors.New("encode: bad")
	for _, tt := range []struct {
		name string
		err  error
		want engine.Code
	}{
		{"no answer in time", fmt.Errorf("call connection/7 inbound: %w: future: timeout", ErrUnavailable), engine.ErrUnavailable},
		{"deadline", fmt.Errorf("call connection/7: %w", context.DeadlineExceeded), engine.ErrUnavailable},
		{"the actor's refusal", validation, engine.ErrValidation},
		{"anything else", other, engine.ErrInternal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := unreached(tt.err)
			if engine.CodeOf(got) != tt.want || !errors.Is(got, tt.err) {
				t.Fatalf("unreached(%v) = %v, want code %s wrapping it", tt.err, got, tt.want)
			}
		})
	}
	if unreached(nil) != nil {
		t.Fatal("nil became an error")
	}
}
