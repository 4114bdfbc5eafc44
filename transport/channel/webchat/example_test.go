package webchat_test

import (
	"fmt"

	"atende/engine"
	"atende/transport/channel/webchat"
)

func ExampleParseClientFrame() {
	f, err := webchat.ParseClientFrame([]byte(`{"type":"message","id":"k3x9","body":" Olá!\r\nTudo bem? "}`))
	fmt.Printf("%s %s %q %v\n", f.Type, f.ID, f.Body, err)

	_, err = webchat.ParseClientFrame([]byte(`{"type":"message","id":"k3x9","body":42}`))
	fmt.Println(engine.CodeOf(err))

	_, err = webchat.ParseClientFrame([]byte(`{"type":"typing"}`))
	fmt.Println(err)
	// Output:
	// message k3x9 "Olá!\nTudo bem?" <nil>
	// ERR_INVALID_JSON
	// ERR_VALIDATION type="Invalid value"
}
