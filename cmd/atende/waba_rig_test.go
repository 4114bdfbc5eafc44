package main

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"atende/engine"
	"atende/node"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/channel/meta"
	"atende/transport/channel/meta/graphfake"
)

const wabaSecret = "meta-app-secret"

// wabaNode is a node (SQLite) with one WABA number registered through
// POST /wacloudapi against a Graph fake; tune, when set, adjusts the config.
type wabaNode struct {
	ta              *testApp
	g               *graphfake.Fake
	carla           *api // supervisor: connections:manage
	conn            engine.Connection
	token, phoneID  string
	wabaID, display string
}

func newWABANode(t *testing.T, token, phoneID, wabaID, display string, tune func(*node.Config)) *wabaNode {
	t.Helper()
	g := graphfake.New(token)
	t.Cleanup(g.Close)
	g.Objects[phoneID] = map[string]any{"display_phone_number": display, "verified_name": "Atende WABA", "id": phoneID}
	cfg := testConfig(t, dbtest.URL(t, db.SQLite))
	cfg.GraphURL, cfg.MetaAppSecret, cfg.MetaVerifyToken = g.URL(), wabaSecret, "verify"
	if tune != nil {
		tune(&cfg)
	}
	n := &wabaNode{ta: startApp(t, cfg), g: g, token: token, phoneID: phoneID, wabaID: wabaID, display: display}
	n.carla = login(t, n.ta.base, "carla@atende.local", "atende123")
	n.carla.call("POST", "/wacloudapi", map[string]string{"currWabaId": wabaID, "currWabaPhoneId": phoneID,
		"currPhoneNumber": display, "currVerifiedName": "Atende WABA", "currWabaToken": token}, 200, &n.conn)
	return n
}

// template makes tpl (a Graph message template) readable by id and listed under the
// number's business account.
func (n *wabaNode) template(tpl map[string]any) {
	n.g.Lock()
	defer n.g.Unlock()
	n.g.Objects[tpl["id"].(string)] = tpl
	n.g.Templates[n.wabaID] = append(n.g.Templates[n.wabaID], tpl)
}

// hook posts body to the web-hook, signed with the app secret when sign is set, and
// answers the status (0 and an error on t when the request fails).
func (n *wabaNode) hook(t *testing.T, body string, sign bool) int {
	req, _ := http.NewRequest("POST", n.ta.base+"/waba/webhook", bytes.NewReader([]byte(body)))
	if sign {
		req.Header.Set("X-Hub-Signature-256", meta.Sign(wabaSecret, []byte(body)))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// text is a Cloud API notification of one text message from customer (wa_id).
func (n *wabaNode) text(customer, name, id, body string) string {
	return `{"object":"whatsapp_business_account","entry":[{"id":"` + n.wabaID + `","changes":[{"field":"messages","value":{
		"messaging_product":"whatsapp","metadata":{"display_phone_number":"55653333","phone_number_id":"` + n.phoneID + `"},
		"contacts":[{"profile":{"name":"` + name + `"},"wa_id":"` + customer + `"}],
		"messages":[{"from":"` + customer + `","id":"` + id + `","timestamp":"1700000000","type":"text","text":{"body":"` + body + `"}}]}}]}]}`
}

// messages are the messages of customer's current ticket on the number (nil while
// there is none).
func (n *wabaNode) messages(customer string) []engine.Message {
	ctx := context.Background()
	contact, err := n.ta.stores.contacts.FindByNumber(ctx, 1, customer)
	if err != nil {
		return nil
	}
	tid, err := n.ta.guard.Current(ctx, n.conn.ID, contact.ID)
	if err != nil || tid == 0 {
		return nil
	}
	msgs, _ := n.ta.queries.AllMessages(ctx, 1, tid)
	return msgs
}

// waitMessage waits until customer's ticket holds a message with provider id pid and
// answers the ticket's messages.
func (n *wabaNode) waitMessage(t *testing.T, customer, pid string) []engine.Message {
	t.Helper()
	var msgs []engine.Message
	waitFor(t, "message "+pid+" in the read model", func() bool {
		msgs = n.messages(customer)
		for _, m := range msgs {
			if m.ProviderID == pid {
				return true
			}
		}
		return false
	})
	return msgs
}
