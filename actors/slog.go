package actors

import (
	"context"
	"log/slog"

	"github.com/rs/zerolog"
)

// zerologHandler forwards protoactor-go's slog records to our zerolog logger. Records
// below minLevel are dropped: protoactor logs every activation at info.
type zerologHandler struct {
	log      zerolog.Logger
	minLevel slog.Level
	attrs    []slog.Attr
}

func newSlog(log zerolog.Logger, min slog.Level) *slog.Logger {
	return slog.New(&zerologHandler{log: log, minLevel: min})
}

func (h *zerologHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.minLevel }

func (h *zerologHandler) Handle(_ context.Context, r slog.Record) error {
	var ev *zerolog.Event
	switch {
	case r.Level >= slog.LevelError:
		ev = h.log.Error()
	case r.Level >= slog.LevelWarn:
		ev = h.log.Warn()
	case r.Level >= slog.LevelInfo:
		ev = h.log.Info()
	default:
		ev = h.log.Debug()
	}
	for _, a := range h.attrs {
		ev = ev.Str(a.Key, a.Value.String())
	}
	r.Attrs(func(a slog.Attr) bool {
		ev = ev.Str(a.Key, a.Value.String())
		return true
	})
	ev.Msg(r.Message)
	return nil
}

func (h *zerologHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr{}, h.attrs...), attrs...)
	return &n
}

func (h *zerologHandler) WithGroup(string) slog.Handler { return h }
