package fake_test

import (
	"context"
	"errors"
	"fmt"

	"atende/engine"
	"atende/transport/channel/fake"
)

func ExampleFactory() {
	ctx := context.Background()
	factory := fake.NewFactory(fake.Options{FailFirst: 1, Duplicate: true})

	// The connection actor builds and starts the channel of connection 12 ...
	ch, _ := factory.NewChannel(engine.Connection{ID: 12, Channel: engine.ChannelWhatsApp})
	sink := newSink()
	_ = ch.Start(ctx, sink)

	// ... and the test plays the provider through the same fake.
	f := factory.Get(12)
	_ = f.InjectQRCode(ctx, "2@qr-payload")
	_ = f.InjectInbound(ctx, fake.Text("5511988887777", 1, "Olá"))

	_, err := ch.Send(ctx, engine.OutboundMessage{MessageID: 1, To: "5511988887777", Body: "Oi!"})
	fmt.Println(errors.Is(err, engine.ErrChannelTemporary))
	id, _ := ch.Send(ctx, engine.OutboundMessage{MessageID: 1, To: "5511988887777", Body: "Oi!"})
	fmt.Println(id, f.Attempts(), sink.calls, len(sink.inbound), sink.statuses[0].Status)
	// Output:
	// true
	// fake-out:1 2 2 1 qrcode
}
