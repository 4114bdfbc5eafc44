package cluster

import "github.com/hashicorp/memberlist"

// WithTransport returns c with its gossip transport wrapped by wrap (tests only).
func WithTransport(c Config, wrap func(memberlist.Transport) memberlist.Transport) Config {
	c.wrapTransport = wrap
	return c
}
