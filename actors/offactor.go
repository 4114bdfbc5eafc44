package actors

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"atende/engine"
)

// Work an actor must not wait for (store round trips, a provider's API, another
// actor's answer) runs in a goroutine that the actor's Routines track, and its result
// comes back into the actor through a future and ReenterAfter: the actor goes on with
// other messages meanwhile, and the continuations of one actor run in the order they
// were registered. offActor is that pattern, written once.

// offResult carries work's result to the future (a pointer, as actor messages are).
type offResult[T any] struct{ v T }

// errStopping is done's error when the goroutine could not start: the node is
// stopping and its Routines refuse new goroutines.
var errStopping = engine.Wrap(engine.ErrUnavailable, errors.New("node shutting down"))

// offActor runs work outside the actor, then done inside it with work's result. done's
// error is ErrUnavailable when no result came within timeout (work's own bounds should
// be shorter) or when the goroutine could not start — then done runs at once, before
// offActor returns, and the future is nil. The future lets later work of the actor
// wait for this one (ReenterAfter on it runs after done).
func offActor[T any](ctx actor.Context, routines *Routines, timeout time.Duration, work func() T, done func(T, error)) *actor.Future {
	f := actor.NewFuture(ctx.ActorSystem(), timeout)
	pid, system := f.PID(), ctx.ActorSystem()
	if !routines.Go(func() { system.Root.Send(pid, &offResult[T]{v: work()}) }) {
		var zero T
		done(zero, errStopping)
		return nil
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		var zero T
		r, ok := res.(*offResult[T])
		switch {
		case ferr != nil:
			done(zero, engine.Wrap(engine.ErrUnavailable, ferr))
		case !ok:
			done(zero, engine.Wrap(engine.ErrInternal, fmt.Errorf("off-actor result %T", res)))
		default:
			done(r.v, nil)
		}
	})
	return f
}
