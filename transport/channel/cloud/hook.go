package cloud

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/rs/zerolog"

	"atende/engine"
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
// actors within ctx. 200 only once deliver returned nil (what it carried is durable),
// 500 "try again" otherwise, so that the provider delivers again (re-deliveries are
// de-duplicated on the message id).
func Deliver[N any](ctx context.Context, w http.ResponseWriter, h Hook, body []byte,
	parse func([]byte) (N, error), deliver func(context.Context, N) error) {
	n, err := parse(body)
	if err != nil {
		h.Log.Warn().Err(err).Msg("web-hook body refused")
		http.Error(w, h.Bad, http.StatusBadRequest)
		return
	}
	if err := deliver(ctx, n); err != nil {
		h.Log.Error().Err(err).Msg(h.Retry)
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
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
