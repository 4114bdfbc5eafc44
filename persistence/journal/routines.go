package journal

import "atende/goroutine"

// routines starts the goroutines this package owns, so Close can wait for them; it
// refuses to start one once closing began.
type routines = goroutine.Group
