// Package fake is a deterministic engine.Channel for engine, actor and load tests: no
// network, no goroutines, no clocks of its own.
//
// A *Channel records what the connection actor sends (ids "fake-out:1",
// "fake-out:2", … in call order, failed attempts included in the count of Attempts
// but not in the numbering), can fail the first N sends with
// engine.ErrChannelTemporary to exercise retries, and lets the test play the
// provider: InjectInbound, InjectReceipt, InjectStatus and InjectQRCode call the sink
// the actor started it with, on the test's goroutine, and return the sink's error.
// With Options.Duplicate every inbound message is delivered twice, as a provider that
// redelivers after a lost acknowledgement would.
//
// A *Factory implements engine.ChannelFactory: it hands out one fake per connection
// and remembers it, so a test reaches the fake of connection N with Get or Wait —
// after the actor started it and again after the actor was restarted (the same fake
// is handed out again; Start may be called again after Stop, or by a second owner
// that takes over, which Starts counts).
//
// Everything here is safe for concurrent use.
package fake
