//go:build !linux

package wsconn

import "errors"

// poller is Linux's epoll; elsewhere connections never park (Options.ParkIdle is
// ignored) and keep a reader goroutine each.
type poller struct{}

var thePoll *poller

func thePoller() (*poller, error) { return nil, errors.New("wsconn: parking needs epoll (Linux)") }

func (p *poller) arm(*Conn) error { return errors.New("wsconn: parking needs epoll (Linux)") }

func (p *poller) forget(*Conn) {}

func pollable(any) (int32, bool) { return 0, false }

func readable(int32) bool { return true }
