package waba

import "testing"

// FuzzParseNotification: no body may panic the parser or the translation into
// inbound messages, and every message it yields has a provider id and a sender.
func FuzzParseNotification(f *testing.F) {
	f.Add([]byte(notify(`[{"from":"5565988887777","id":"wamid.A1","timestamp":"1700000000","type":"text","text":{"body":"oi"}}]`, "")))
	f.Add([]byte(notify(`[{"from":"5","id":"w","type":"image","image":{"id":"1","caption":"c"},"context":{"id":"q"}}]`, `[{"id":"w","status":"read"}]`)))
	f.Add([]byte(`{"object":"whatsapp_business_account","entry":[{"changes":[{"value":{"messages":[{"type":"interactive","interactive":{}}]}}]}]}`))
	f.Add([]byte(`{"object":"whatsapp_business_account","entry":null}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, body []byte) {
		n, err := parseNotification(body)
		if err != nil {
			return
		}
		for _, e := range n.Entry {
			for _, c := range e.Changes {
				for _, in := range c.Value.inbounds() {
					if in.msg.ProviderID == "" || in.msg.From.Number == "" {
						t.Fatalf("inbound without id or sender: %+v", in.msg)
					}
					if in.media != nil && in.media.ID == "" {
						t.Fatalf("media without id: %+v", in)
					}
				}
				for _, s := range c.Value.Statuses {
					if ack, ok := ackOf(s.Status); ok != (ack != 0) {
						t.Fatalf("status %q: ack %d, known %v", s.Status, ack, ok)
					}
				}
			}
		}
	})
}
