package seed

import (
	"context"

	"atende/engine"
)

// DemoWebChatName names the demo tenant's web chat connection; /webchat/demo?c=<id>
// opens a page where anyone can chat with the demo attendants.
const DemoWebChatName = "Chat do site"

// seedWebChat gives the demo tenant a web chat connection serving the first demo
// queue, with a greeting and a farewell.
func seedWebChat(ctx context.Context, d Deps) error {
	if d.Connections == nil {
		return nil
	}
	conns, err := d.Connections.List(ctx, DemoCompanyID)
	if err != nil {
		return err
	}
	for _, c := range conns {
		if c.Channel == engine.ChannelSocket {
			return nil
		}
	}
	in := engine.ConnectionInput{Name: DemoWebChatName, Channel: engine.ChannelSocket, IsDefault: true,
		GreetingMessage: "Olá! Você está falando com a Atende Demo. Em que podemos ajudar?",
		FarewellMessage: "Obrigado pelo contato! Se precisar, é só chamar."}
	if d.Queues != nil {
		if qs, err := d.Queues.List(ctx, DemoCompanyID); err == nil && len(qs) > 0 {
			in.QueueIDs = []engine.ID{qs[0].ID}
		}
	}
	c, err := d.Connections.Create(ctx, DemoCompanyID, in)
	if err != nil {
		return err
	}
	d.Log.Info().Int64("conn_id", c.ID).Msg("seed: demo web chat connection created")
	return nil
}
