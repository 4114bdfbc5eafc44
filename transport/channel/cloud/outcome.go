package cloud

import (
	"errors"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"

	"atende/engine"
)

// OutcomeUnknownError is a send that may have been accepted: its request was written
// in full and then the answer was lost (timeout, connection reset, a gateway's
// 502/504 without the provider's error body) or was a 2xx that could not be read or
// carried no message id. Retrying it could deliver the message twice — none of the
// cloud providers takes an idempotency key — so it is not retried.
type OutcomeUnknownError struct{ Err error }

func (e *OutcomeUnknownError) Error() string {
	return "send outcome unknown (request delivered, answer lost; not retried): " + e.Err.Error()
}

func (e *OutcomeUnknownError) Unwrap() error { return e.Err }

// IsOutcomeUnknown reports whether err is (or wraps) an OutcomeUnknownError.
func IsOutcomeUnknown(err error) bool {
	var ou *OutcomeUnknownError
	return errors.As(err, &ou)
}

// Written follows one request through the transport: whether its request (headers
// and body) was written in full on a connection. A send that fails after that point
// may have been accepted by the provider. The zero value is ready.
type Written struct{ done atomic.Bool }

// Trace returns req with a client trace that sets w once the request is written.
func (w *Written) Trace(req *http.Request) *http.Request {
	t := &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		if i.Err == nil {
			w.done.Store(true)
		}
	}}
	return req.WithContext(httptrace.WithClientTrace(req.Context(), t))
}

// OK reports whether the request was written in full.
func (w *Written) OK() bool { return w.done.Load() }

// GatewayUnknown reports whether an answer says nothing about the message: a
// gateway's 502 or 504 without the provider's own body (providerBody false; the
// provider behind the gateway may have processed the request).
func GatewayUnknown(status int, providerBody bool) bool {
	return !providerBody && (status == http.StatusBadGateway || status == http.StatusGatewayTimeout)
}

// Interactive is what a provider error, already classified by its adapter, answers a
// person waiting on a request (registering a number, sending a template): a
// temporary failure is ERR_UNAVAILABLE (try again), anything else its own code.
func Interactive(classified error) error {
	if errors.Is(classified, engine.ErrChannelTemporary) {
		return engine.Wrap(engine.ErrUnavailable, classified)
	}
	return classified
}
