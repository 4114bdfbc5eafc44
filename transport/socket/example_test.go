package socket_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/socket"
)

// The wiring: a hub that the domain publishes to, a server mounted at /socket.io/.
func ExampleNewServer() {
	log := zerolog.Nop()
	hub, err := socket.NewHub(socket.HubConfig{Logger: log})
	if err != nil {
		panic(err)
	}
	srv, err := socket.NewServer(socket.Config{
		Hub:    hub,
		Logger: log,
		Authenticator: socket.AuthenticatorFunc(func(ctx context.Context, token string) (socket.Principal, error) {
			// Verify the access JWT here.
			return socket.Principal{UserID: 7, CompanyID: 1, Profile: "user", QueueIDs: []int64{2}}, nil
		}),
		Authorizer: socket.AuthorizerFunc(func(ctx context.Context, p socket.Principal, room socket.Room) error {
			// Look a RoomChatBox's ticket up (room.ID) in p's tenant: a "user" may
			// open only tickets of his queues.
			if room.Kind == socket.RoomChatBox && p.Profile == "user" && !p.InQueue(2) {
				return engine.E(engine.ErrNoPermission)
			}
			return nil
		}),
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/socket.io/", srv)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Println(srv.Shutdown(ctx))
	// Output: <nil>
}

// Publishing: one event to the sockets showing ticket 42 and the pending list,
// hidden from users outside queue 2.
func ExampleHub_Publish() {
	backlog, _ := socket.NewMemoryBacklog(socket.MemoryBacklogConfig{FirstSeq: func(int64) int64 { return 0 }})
	hub, _ := socket.NewHub(socket.HubConfig{Backlog: backlog})
	for i := 0; i < 2; i++ {
		seq, err := hub.Publish(socket.Event{
			Tenant:  1,
			Rooms:   []socket.Room{socket.ChatBoxRoom(42), socket.TicketsRoom(engine.StatusPending)},
			Name:    "ticket",
			Payload: json.RawMessage(`{"action":"update","ticket":{"id":42,"queueId":2}}`),
			Filter: socket.FilterFunc(func(p socket.Principal) bool {
				return p.Profile != "user" || p.InQueue(2)
			}),
		})
		fmt.Println(seq, err)
	}
	_, err := hub.Publish(socket.Event{Tenant: 1, Rooms: []socket.Room{socket.CompanyRoom()}, Name: "whatsapp", Payload: json.RawMessage(`[1]`)})
	fmt.Println(err)
	// Output:
	// 1 <nil>
	// 2 <nil>
	// publish: event "whatsapp": payload is not a JSON object: socket: invalid event
}
