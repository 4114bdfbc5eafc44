package telegram

import (
	"strings"
	"testing"
)

// FuzzParseUpdate: no body panics the parser; every recorded message has a provider
// id made of its chat and message ids, and a tg: sender.
func FuzzParseUpdate(f *testing.F) {
	f.Add([]byte(`{"update_id":1,` + textUpdate[1:]))
	f.Add([]byte(`{"update_id":2,"message":{"message_id":3,"chat":{"id":-100,"type":"supergroup","title":"G"},"document":{"file_id":"d","file_name":"a.pdf"},"reply_to_message":{"message_id":1}}}`))
	f.Add([]byte(`{"update_id":3,"message":{"message_id":4,"chat":{"id":5,"type":"private"},"photo":[]}}`))
	f.Add([]byte(`{"message":null}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, body []byte) {
		u, err := parseUpdate(body)
		if err != nil {
			return
		}
		in, media, ok := inboundOf(u.Message)
		if !ok {
			return
		}
		if in.ProviderID == "" || !strings.HasPrefix(in.From.Number, contactPrefix) {
			t.Fatalf("inbound %+v", in)
		}
		if _, ok := messageOf(in.ProviderID); !ok {
			t.Fatalf("provider id %q has no message id", in.ProviderID)
		}
		if media != nil && media.FileID == "" {
			t.Fatalf("media without file id")
		}
	})
}
