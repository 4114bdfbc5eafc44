package cloud

import (
	"context"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/jsonapi"
)

// Starter (re)starts a connection's actor (actors.Connections).
type Starter interface {
	Start(ctx context.Context, id engine.ID) (engine.Connection, error)
	Restart(ctx context.Context, id engine.ID) error
}

// Actors is what an adapter needs of the connection actors (actors.Connections):
// starting and restarting a connection's actor, and the sink of its inbound.
type Actors interface {
	Starter
	Sink(id engine.ID) engine.ChannelSink
}

// Deps are an adapter's collaborators, all required but Publisher.
type Deps struct {
	Connections engine.ConnectionStore
	Credentials engine.CredentialStore
	Media       engine.MediaStore
	Actors      Actors
	// Publisher announces the connections a registration creates (the "whatsapp"
	// event), so every open connections screen shows them; nil announces nothing.
	Publisher jsonapi.Publisher
	Logger    zerolog.Logger
}
