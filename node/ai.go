package node

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"atende/engine"
	"atende/goroutine"
	"atende/persistence/aiconfig"
	"atende/transport/ai"
	"atende/transport/ai/fakeai"
	httpapi "atende/transport/http"
)

// aiDeps builds the AI assistance (docs/ai.md): the tenants' endpoints with their keys
// sealed under AI_KEY_SECRET (the JWT secret when unset), and the client that asks
// them. --ai-fake also serves the fake OpenAI API on that address, for development
// and the browser tests: point a tenant's /iaconfig at http://<addr>/v1.
func (n *Node) aiDeps() (httpapi.AIDeps, error) {
	secret := n.cfg.AIKeySecret
	if secret == "" {
		secret = n.cfg.JWTSecret
	}
	seal, err := aiconfig.NewSealer(secret)
	if err != nil {
		return httpapi.AIDeps{}, err
	}
	configs := aiconfig.New(n.db, seal, nil)
	if n.cfg.AIFake != "" {
		ln, err := net.Listen("tcp", n.cfg.AIFake)
		if err != nil {
			return httpapi.AIDeps{}, err
		}
		srv := &http.Server{Handler: fakeai.New("").Handler(), ReadHeaderTimeout: 5 * time.Second}
		serving := &goroutine.Group{}
		serving.Go(func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				n.log.Error().Err(err).Msg("fake OpenAI API stopped")
			}
		})
		n.onClose(func(ctx context.Context) error { return errors.Join(srv.Shutdown(ctx), serving.Wait(ctx)) })
		n.log.Warn().Str("addr", ln.Addr().String()).Msg("AI: a FAKE OpenAI API is served at http://" + ln.Addr().String() + "/v1 (development and tests only)")
	}
	return httpapi.AIDeps{AI: ai.New(configs, ai.Config{}), AIConfigs: configs}, nil
}

// intentRouter is the AI client as the connections' intent router; nil without one.
func intentRouter(d httpapi.AIDeps) engine.IntentRouter {
	if r, ok := d.AI.(engine.IntentRouter); ok && d.AI != nil {
		return r
	}
	return nil
}
