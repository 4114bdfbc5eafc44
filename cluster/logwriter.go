package cluster

import (
	"strings"

	"github.com/rs/zerolog"
)

// logWriter turns memberlist's log lines ("[WARN] memberlist: …") into zerolog
// events at the matching level.
type logWriter struct {
	log zerolog.Logger // static
}

func (w logWriter) Write(b []byte) (int, error) {
	line := strings.TrimSpace(string(b))
	level := zerolog.InfoLevel
	if rest, ok := strings.CutPrefix(line, "["); ok {
		if tag, msg, ok := strings.Cut(rest, "]"); ok {
			switch tag {
			case "DEBUG", "TRACE":
				level = zerolog.DebugLevel
			case "INFO":
				level = zerolog.InfoLevel
			case "WARN":
				level = zerolog.WarnLevel
			case "ERR", "ERROR":
				level = zerolog.ErrorLevel
			}
			line = strings.TrimSpace(msg)
		}
	}
	line = strings.TrimPrefix(line, "memberlist: ")
	w.log.WithLevel(level).Msg(line)
	return len(b), nil
}
