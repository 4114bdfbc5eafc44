package whatsapp

import (
	"os"

	"github.com/rs/zerolog"
	signallog "go.mau.fi/libsignal/logger"
)

// libsignal (the Signal protocol under whatsmeow) sets its package logger lazily, on
// its first log call, without synchronisation: two devices created at once — two
// WhatsApp connections starting together — race on that write (the race detector
// caught it in TestImportWhaticketCommand). Setting the logger here, before any
// goroutine can log, removes the race. Its debug and info lines are dropped, as its
// default logger drops debug; warnings and errors go to stderr as JSON log lines.
func init() {
	var l signallog.Loggable = signalLog{log: zerolog.New(os.Stderr).With().Timestamp().Str("component", "libsignal").Logger()}
	signallog.Setup(&l)
}

// signalLog is libsignal's logger.
type signalLog struct{ log zerolog.Logger }

func (signalLog) Debug(string, string) {}
func (signalLog) Info(string, string)  {}
func (s signalLog) Warning(caller, msg string) {
	s.log.Warn().Str("caller", caller).Msg(msg)
}
func (s signalLog) Error(caller, msg string) {
	s.log.Error().Str("caller", caller).Msg(msg)
}
func (signalLog) Configure(string) {}
