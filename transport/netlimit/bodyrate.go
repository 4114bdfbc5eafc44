package netlimit

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"
)

// BodyRate cuts request bodies that arrive too slowly: a client that declares a body
// and then sends a byte now and then would otherwise hold its connection (and a
// file descriptor and a goroutine) for as long as it likes.
//
// A body must arrive at MinRate bytes per second on average from the moment the
// handler starts, after a Grace period: the connection's read deadline is first
// Grace away and moves on by one second per MinRate bytes read, never beyond Max
// from the start. A read past the deadline fails (the handler answers its usual
// error for a broken body) and the server closes the connection.
type BodyRate struct {
	// Grace is the time a body has before the rate counts (the first bytes, a slow
	// start). Zero: 10 s.
	Grace time.Duration
	// MinRate is the slowest average body rate, bytes per second. Zero: no minimum
	// (only Max applies).
	MinRate int64
	// Max bounds reading one body, however fast it arrives. Zero: no bound.
	Max time.Duration
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
	// OnCut, when set, is called once for each body cut (a metric).
	OnCut func()
}

// DefaultBodyGrace is BodyRate.Grace's default.
const DefaultBodyGrace = 10 * time.Second

// Wrap returns next with the body rate enforced on every request that has a body.
// Requests without one (GET, websocket handshakes) pass untouched. It must wrap the
// http.Server's own ResponseWriter (or wrappers that Unwrap to it): the deadline is
// set through http.ResponseController.
func (b BodyRate) Wrap(next http.Handler) http.Handler {
	if b.Grace <= 0 {
		b.Grace = DefaultBodyGrace
	}
	if b.Now == nil {
		b.Now = time.Now
	}
	if b.MinRate <= 0 && b.Max <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rb := &rateBody{rc: http.NewResponseController(w), body: r.Body, cfg: b, start: b.Now()}
		if err := rb.move(); err != nil {
			// No deadline can be set on this writer (a test recorder): serve as is.
			next.ServeHTTP(w, r)
			return
		}
		r.Body = rb
		next.ServeHTTP(w, r)
	})
}

// rateBody moves the connection's read deadline as the body arrives.
type rateBody struct {
	// static after Wrap
	rc    *http.ResponseController
	body  io.ReadCloser
	cfg   BodyRate
	start time.Time

	// owned by the handler's goroutine (a body is read by one goroutine)
	read     int64     // bytes read so far
	deadline time.Time // the deadline last set
	cut      bool      // the deadline passed (OnCut was called)
}

// deadlineStep is how far the deadline must move before it is set again: fewer
// calls into the poller on a fast upload.
const deadlineStep = 250 * time.Millisecond

// due is the read deadline after rb.read bytes.
func (rb *rateBody) due() time.Time {
	var d time.Time
	if rb.cfg.MinRate > 0 {
		d = rb.start.Add(rb.cfg.Grace + time.Duration(float64(rb.read)/float64(rb.cfg.MinRate)*float64(time.Second)))
	}
	if rb.cfg.Max > 0 {
		if limit := rb.start.Add(rb.cfg.Max); d.IsZero() || limit.Before(d) {
			d = limit
		}
	}
	return d
}

// move sets the read deadline when it moved far enough.
func (rb *rateBody) move() error {
	d := rb.due()
	if !rb.deadline.IsZero() && d.Sub(rb.deadline) < deadlineStep {
		return nil
	}
	rb.deadline = d
	return rb.rc.SetReadDeadline(d)
}

func (rb *rateBody) Read(p []byte) (int, error) {
	n, err := rb.body.Read(p)
	if n > 0 {
		rb.read += int64(n)
		_ = rb.move()
	}
	if err != nil && !rb.cut && errors.Is(err, os.ErrDeadlineExceeded) {
		rb.cut = true
		if rb.cfg.OnCut != nil {
			rb.cfg.OnCut()
		}
	}
	return n, err
}

func (rb *rateBody) Close() error { return rb.body.Close() }
