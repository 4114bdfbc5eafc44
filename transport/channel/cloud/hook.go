package cloud

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/ingest"
	"atende/transport/jsonapi"
)

// Hook names what one adapter's web-hook answers and logs.
type Hook struct {
	Log zerolog.Logger
	// Bad is the 400 answer to a body that does not parse, e.g. "bad notification".
	Bad string
	// Retry is the log message of a failed delivery, e.g. "web-hook delivery failed:
	// provider will retry".
	Retry string
}

// Deliver ends a web-hook delivery whose body was read and authenticated: a body
// parse refuses is answered 400 h.Bad; otherwise deliver hands it to the connection
// actors within ctx. 200 only once deliver returned nil (what it carried is durable);
// otherwise the provider is to deliver again (re-deliveries are de-duplicated on the
// message id): a node too busy to take it now, or an actor that did not answer in
// time (ingest.Retryable), is 503 {"error":"ERR_UNAVAILABLE","retryAfter":n} with
// Retry-After: n seconds; any other failure is 500 "try again".
func Deliver[N any](ctx context.Context, w http.ResponseWriter, h Hook, body []byte,
	parse func([]byte) (N, error), deliver func(context.Context, N) error) {
	n, err := parse(body)
	if err != nil {
		h.Log.Warn().Err(err).Msg("web-hook body refused")
		http.Error(w, h.Bad, http.StatusBadRequest)
		return
	}
	if err := deliver(ctx, n); err != nil {
		if o, ok := ingest.Retryable(err); ok {
			// Load shed or a stall inside: expected under overload, so a warning, and
			// the sender is told when to come back.
			h.Log.Warn().Err(err).Msg(h.Retry)
			secs := o.RetryAfterSeconds()
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			jsonapi.WriteJSON(w, engine.ErrUnavailable.HTTPStatus(), overloaded{Error: engine.ErrUnavailable, RetryAfter: secs})
			return
		}
		h.Log.Error().Err(err).Msg(h.Retry)
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// overloaded is the body of a 503 answer to a web-hook delivery the node could not
// take now.
type overloaded struct {
	Error      engine.Code `json:"error"`
	RetryAfter int         `json:"retryAfter"` // seconds, as the Retry-After header
}

// SaveMedia stores an inbound file for company and returns its path. A file the store
// refuses for good (too large, a type not allowed, empty) is "" and no error — the message is
// kept without it — after refused is called with the store's error to log it.
func SaveMedia(ctx context.Context, store engine.MediaStore, company engine.ID, body io.Reader,
	name, mimeType string, refused func(error)) (string, error) {
	f, err := store.Save(ctx, company, body, name, mimeType)
	if err != nil {
		// Refused for good (too large, a type not allowed, an empty file): no
		// re-delivery would change that.
		if c := engine.CodeOf(err); c == engine.ErrMediaTooLarge || c == engine.ErrMediaTypeNotAllowed || c == engine.ErrValidation {
			refused(err)
			return "", nil
		}
		return "", err
	}
	return f.Path, nil
}

// OpenMedia opens the file of an outbound message for adapter who ("meta"): a file
// the store does not have is ERR_CHANNEL_REFUSED (no retry brings it back), any other
// failure wraps engine.ErrChannelTemporary. The caller closes the file.
func OpenMedia(ctx context.Context, store engine.MediaStore, company engine.ID, path, who string) (io.ReadSeekCloser, engine.MediaFile, error) {
	f, info, err := store.Open(ctx, company, path)
	if err != nil {
		if engine.CodeOf(err) == engine.ErrNotFound {
			return nil, info, engine.Wrap(engine.ErrChannelRefused, err)
		}
		return nil, info, fmt.Errorf("%s: open media: %w: %w", who, engine.ErrChannelTemporary, err)
	}
	return f, info, nil
}
