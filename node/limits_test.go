package node

import (
	"testing"
	"time"
)

// The HTTP server takes the limits' timeouts as they are set.
func TestLimitsHTTPServer(t *testing.T) {
	l := Limits{ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Minute, WriteTimeout: 5 * time.Minute,
		IdleTimeout: time.Minute, BodyGrace: 10 * time.Second, MinBodyRate: 1024}
	srv := l.httpServer(nil, nil)
	if srv.ReadTimeout != 10*time.Minute || srv.WriteTimeout != 5*time.Minute || srv.IdleTimeout != time.Minute || srv.ReadHeaderTimeout != 10*time.Second {
		t.Fatalf("http.Server timeouts %v %v %v %v", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
}

// The settings' 0 ("no limit") reaches ingest as -1, and 0 new visitors per minute
// lifts the per-address limit only.
func TestLimitsAdmissionAndNewVisitorRates(t *testing.T) {
	l := Limits{InboundMaxInFlight: -1, InboundMaxPerConnection: 8, InboundWait: 250 * time.Millisecond,
		InboundRetryAfter: 5 * time.Second, WebchatNewPerMinute: 0, WebchatNewBurst: 10, WebchatNewPerConnection: 120}
	lim, err := l.admission()
	if err != nil {
		t.Fatal(err)
	}
	// 0 lifts the node's bound; the connection's is as set.
	if got := lim.Config(); got.MaxInFlight != -1 || got.MaxPerConnection != 8 || got.Wait != 250*time.Millisecond || got.RetryAfter != 5*time.Second {
		t.Fatalf("inbound admission %+v", got)
	}
	perAddress, perConnection := l.newVisitorRates()
	if !perAddress.Unlimited() || perConnection.Unlimited() {
		t.Fatalf("0 per minute must lift the per-address limit only: %+v %+v", perAddress, perConnection)
	}
}
