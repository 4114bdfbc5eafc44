package actors

import "atende/goroutine"

// Routines starts goroutines that are tracked: Close refuses new ones and waits for
// the running ones. No bare `go` in this package.
type Routines = goroutine.Group
