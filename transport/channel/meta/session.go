package meta

import (
	"context"
	"fmt"
	"sync"

	"atende/engine"
)

// Session holds the credentials of a started channel of the Graph adapters (WABA,
// Facebook, Instagram). The providers keep no session: Open reads the connection's
// credentials, Send uses them, Close forgets them. The zero value is closed; safe for
// concurrent use.
type Session struct {
	mu   sync.Mutex // guards cred
	cred *engine.ChannelCredentials
}

// Open reads conn's credentials from store and holds them.
func (s *Session) Open(ctx context.Context, store engine.CredentialStore, conn engine.Connection) error {
	cred, err := store.Get(ctx, conn.ID)
	if err != nil {
		return fmt.Errorf("%s connection %d: %w", conn.Channel, conn.ID, err)
	}
	s.mu.Lock()
	s.cred = &cred
	s.mu.Unlock()
	return nil
}

// Close forgets the credentials.
func (s *Session) Close() {
	s.mu.Lock()
	s.cred = nil
	s.mu.Unlock()
}

// Credentials are the credentials held for conn; engine.ErrChannelTemporary while
// the session is closed.
func (s *Session) Credentials(conn engine.Connection) (engine.ChannelCredentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cred == nil {
		return engine.ChannelCredentials{}, fmt.Errorf("%s connection %d not started: %w", conn.Channel, conn.ID, engine.ErrChannelTemporary)
	}
	return *s.cred, nil
}
