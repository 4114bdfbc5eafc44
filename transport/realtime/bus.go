package realtime

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
)

// EvRealtime is the journal event type of a reference-data notice; its data is a
// Notice.
const EvRealtime = "realtime.notice"

// Notice is a socket event for the whole tenant (or one user), carried by the journal.
type Notice struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	UserID  engine.ID       `json:"userId,omitempty"` // only that user's sockets; 0: the whole tenant
	// Permission, when set, limits the notice to the sockets of profiles allowed that
	// action (engine.Can): who is online reaches the supervision screens only.
	Permission string `json:"permission,omitempty"`
}

// RealtimeStream is the journal stream of a tenant's notices.
func RealtimeStream(companyID engine.ID) string {
	return "realtime/" + strconv.FormatInt(companyID, 10)
}

// Bus appends notices to the journal; it implements the REST API's Publisher.
type Bus struct {
	Journal engine.Journal
	Logger  zerolog.Logger
}

// Publish implements httpapi.Publisher: the notice reaches every node's sockets of
// the tenant through the journal. Failures are logged, not returned: the change the
// notice announces is already stored, and clients resync on reconnect.
func (b Bus) Publish(companyID engine.ID, event string, payload any) {
	b.PublishTo(companyID, "", event, payload)
}

// PublishTo is Publish for the sockets of profiles allowed permission only ("" is
// everybody of the tenant).
func (b Bus) PublishTo(companyID engine.ID, permission, event string, payload any) {
	body, err := json.Marshal(payload)
	if err != nil {
		b.Logger.Error().Err(err).Str("event", event).Msg("realtime notice: encode")
		return
	}
	data, err := json.Marshal(Notice{Event: event, Payload: body, Permission: permission})
	if err != nil {
		b.Logger.Error().Err(err).Str("event", event).Msg("realtime notice: encode")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := b.Journal.Append(ctx, companyID, RealtimeStream(companyID), engine.AnyVersion,
		engine.EventData{Type: EvRealtime, Data: data}); err != nil {
		b.Logger.Error().Err(err).Str("event", event).Int64("tenant", companyID).Msg("realtime notice: append")
	}
}
