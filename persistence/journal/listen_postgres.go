package journal

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"
)

// Reconnect delays of the listener.
const (
	listenMinBackoff = 100 * time.Millisecond
	listenMaxBackoff = 5 * time.Second
)

// listen holds a dedicated connection LISTENing on notifyChannel and calls signal for
// every commit announced (this node's too) until ctx ends. After each (re)connect it
// signals once, since commits may have gone unheard while it was away; when the
// connection is lost it signals too, so that readers waiting on Notify learn that
// they must poll (hearing) until it is back.
func (b *postgresBackend) listen(ctx context.Context, log zerolog.Logger, signal func(), hearing func(bool)) {
	backoff := listenMinBackoff
	for ctx.Err() == nil {
		heard, err := b.listenOnce(ctx, signal, hearing)
		if ctx.Err() != nil {
			return
		}
		if heard {
			backoff = listenMinBackoff
		}
		log.Warn().Err(err).Dur("retry_in", backoff).Msg("journal listener lost; reconnecting")
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, listenMaxBackoff)
	}
}

// listenOnce reports whether it got as far as listening.
func (b *postgresBackend) listenOnce(ctx context.Context, signal func(), hearing func(bool)) (bool, error) {
	conn, err := pgx.ConnectConfig(ctx, b.pool.Config().ConnConfig.Copy())
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return false, fmt.Errorf("listen: %w", err)
	}
	hearing(b.notify) // a backend that announces no commits hears none
	signal()
	defer signal()
	defer hearing(false)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return true, fmt.Errorf("wait for notification: %w", err)
		}
		signal()
	}
}
