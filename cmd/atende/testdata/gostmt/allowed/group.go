package allowed

// Go is the one place that may start a goroutine.
func Go(fn func()) { go fn() }
