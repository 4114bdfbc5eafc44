package whatsapp

import (
	"sync"
	"testing"

	signallog "go.mau.fi/libsignal/logger"
	"go.mau.fi/whatsmeow/util/keys"
)

// libsignal's logger is set before any device is made, so devices made at once do
// not race on its lazy setup (run with -race, the concurrent signatures below fail
// without it).
func TestSignalLoggerIsSetBeforeUse(t *testing.T) {
	if _, ok := signallog.Logger.(signalLog); !ok {
		t.Fatalf("libsignal's logger is %T, want ours set at init", signallog.Logger)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if pk := keys.NewKeyPair().CreateSignedPreKey(uint32(i + 1)); pk == nil {
				t.Error("no signed pre-key")
			}
		}()
	}
	wg.Wait()
}
