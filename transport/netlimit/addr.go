package netlimit

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddr is the IP address of r's client: the connection's, or with
// trustForwardedFor the last X-Forwarded-For entry (the one our own reverse proxy
// appended; the entries before it are whatever the client claimed).
func ClientAddr(r *http.Request, trustForwardedFor bool) string {
	if trustForwardedFor {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			last := xff[len(xff)-1]
			if i := strings.LastIndexByte(last, ','); i >= 0 {
				last = last[i+1:]
			}
			if ip := net.ParseIP(strings.TrimSpace(last)); ip != nil {
				return ip.String()
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || host == "" {
		return r.RemoteAddr // no host:port, or no host: counted as it is
	}
	return host
}

// AddressKey is the key a client address is counted under: an IPv4 address as it
// is, an IPv6 address by its /64 (one subscriber is routed a whole /64 and could
// otherwise take a fresh address for each connection). Anything else is kept as is.
func AddressKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}
