package main

import (
	"strings"
	"testing"
	"time"
)

func TestLimitsDefaults(t *testing.T) {
	c, err := parseConfig(nil, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Limits
	if l.ReadHeaderTimeout != 10*time.Second || l.ReadTimeout != 10*time.Minute || l.WriteTimeout != 5*time.Minute ||
		l.IdleTimeout != time.Minute || l.BodyGrace != 10*time.Second || l.MinBodyRate != 1024 || l.TrustForwardedFor {
		t.Fatalf("HTTP limits %+v", l)
	}
	if l.Socket != defaultSocketLimits || l.Webchat != defaultWebchatLimits {
		t.Fatalf("gate limits %+v %+v", l.Socket, l.Webchat)
	}
	if l.WebchatNewPerMinute != 10 || l.WebchatNewBurst != 10 || l.WebchatNewPerConnection != 120 || l.WebchatProofBits != 0 {
		t.Fatalf("new visitor limits %+v", l)
	}
	if l.InboundMaxInFlight != 256 || l.InboundMaxPerConnection != 64 || l.InboundWait != time.Second || l.InboundRetryAfter != 2*time.Second {
		t.Fatalf("inbound admission %+v", l)
	}
}

func TestLimitsFromEnvAndFlags(t *testing.T) {
	c, err := parseConfig([]string{"--webchat-max-connections-per-address", "3", "--http-idle-timeout", "5s"}, envOf(map[string]string{
		"WEBCHAT_MAX_CONNECTIONS_PER_ADDRESS": "9", "HTTP_MIN_BODY_RATE": "0", "SOCKET_HANDSHAKES_PER_MINUTE": "7.5",
		"WEBCHAT_NEW_VISITORS_PER_MINUTE": "0", "TRUST_FORWARDED_FOR": "true", "WEBCHAT_PROOF_OF_WORK_BITS": "16",
		"INBOUND_MAX_IN_FLIGHT": "0", "INBOUND_MAX_IN_FLIGHT_PER_CONNECTION": "8", "INBOUND_ADMIT_WAIT": "250ms", "INBOUND_RETRY_AFTER": "5s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Limits
	if l.Webchat.MaxPerAddress != 3 || l.IdleTimeout != 5*time.Second || l.MinBodyRate != 0 || l.Socket.HandshakesPerMinute != 7.5 || !l.TrustForwardedFor || l.WebchatProofBits != 16 {
		t.Fatalf("limits %+v", l)
	}
	// 0 lifts the node's bound (ingest takes -1 for that); the connection's is as set.
	if l.InboundMaxInFlight != -1 || l.InboundMaxPerConnection != 8 || l.InboundWait != 250*time.Millisecond || l.InboundRetryAfter != 5*time.Second {
		t.Fatalf("inbound admission %+v", l)
	}
	if l.WebchatNewPerMinute != 0 || l.WebchatNewPerConnection != 120 {
		t.Fatalf("new visitor limits %+v", l)
	}
}

func TestLimitsRefusals(t *testing.T) {
	for env, want := range map[string]string{
		"HTTP_READ_TIMEOUT":                   "positive duration",
		"SOCKET_MAX_CONNECTIONS":              "whole number",
		"WEBCHAT_HANDSHAKES_PER_SECOND":       "number ≥ 0",
		"WEBCHAT_NEW_VISITORS_PER_CONNECTION": "number ≥ 0",
		"TRUST_FORWARDED_FOR":                 "true or false",
		"WEBCHAT_PROOF_OF_WORK_BITS":          "whole number",
		"INBOUND_MAX_IN_FLIGHT":               "whole number",
		"INBOUND_ADMIT_WAIT":                  "positive duration",
	} {
		_, err := parseConfig(nil, envOf(map[string]string{env: "-1"}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=-1: %v, want an error saying %q", env, err, want)
		}
	}
	if _, err := parseConfig(nil, envOf(map[string]string{"WEBCHAT_PROOF_OF_WORK_BITS": "29"})); err == nil || !strings.Contains(err.Error(), "at most 28") {
		t.Errorf("WEBCHAT_PROOF_OF_WORK_BITS=29: %v, want at most 28", err)
	}
}
