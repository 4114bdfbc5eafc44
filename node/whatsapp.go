package node

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"atende/goroutine"
	"atende/persistence/db"
	"atende/transport/channel/whatsapp"
	"atende/transport/channel/whatsapp/fakewa"
)

// startWhatsApp opens the WhatsApp device store (running whatsmeow's schema upgrade)
// and builds the WhatsApp channel factory. The hidden test flags point the clients at
// a fake WhatsApp Web server: in-process (--whatsapp-fake, with its control API on
// that address) or outside (--whatsapp-ws-url, --whatsapp-ca-file, --whatsapp-cert-key).
func (n *Node) startWhatsApp(ctx context.Context, l *live) (*whatsapp.Factory, error) {
	log := n.log.With().Str("channel", "whatsapp").Logger()
	devs, err := openWhatsAppDevices(ctx, n.db)
	if err != nil {
		return nil, err
	}
	cfg := whatsapp.Config{Devices: devs, Media: l.media, Settings: n.stores.settings, Logger: log}
	fakes := 0
	for _, v := range []string{n.cfg.WhatsAppFake, n.cfg.WhatsAppWSURL, n.cfg.WhatsAppFakePhone} {
		if v != "" {
			fakes++
		}
	}
	switch {
	case fakes > 1:
		return nil, errors.New("--whatsapp-fake, --whatsapp-ws-url and --whatsapp-fake-phone exclude each other")
	case n.cfg.WhatsAppFakePhone != "":
		phone := fakewa.New()
		phone.SlowSends(n.cfg.WhatsAppFakePhoneDelay)
		if path := n.cfg.WhatsAppFakePhoneLog; path != "" {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				return nil, fmt.Errorf("--whatsapp-fake-phone-log: %w", err)
			}
			n.onClose(func(context.Context) error { return f.Close() })
			phone.LogTo(f)
		}
		ctlAddr, err := n.serveFakeControl(n.cfg.WhatsAppFakePhone, phone)
		if err != nil {
			return nil, err
		}
		cfg.NewClient = phone.NewClient
		log.Warn().Str("control", ctlAddr).Msg("WhatsApp is FAKE: connections use in-process fake clients that record their sends (tests only)")
	case n.cfg.WhatsAppFake != "":
		srv, err := fakewa.NewServer("127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		n.onClose(func(context.Context) error { return srv.Close() })
		ctlAddr, err := n.serveFakeControl(n.cfg.WhatsAppFake, srv.Control())
		if err != nil {
			return nil, err
		}
		if cfg.Endpoint, err = whatsapp.NewEndpoint(srv.Addr, srv.CertPEM, srv.RootKey); err != nil {
			return nil, err
		}
		log.Warn().Str("server", srv.Addr).Str("control", ctlAddr).Msg("WhatsApp is FAKE: connections talk to an in-process fake server (tests only)")
	case n.cfg.WhatsAppWSURL != "":
		u, err := url.Parse(n.cfg.WhatsAppWSURL)
		if err != nil || u.Scheme != "wss" || u.Port() == "" {
			return nil, fmt.Errorf("--whatsapp-ws-url %q: want wss://host:port/ws/chat", n.cfg.WhatsAppWSURL)
		}
		ca, err := os.ReadFile(n.cfg.WhatsAppCAFile)
		if err != nil {
			return nil, fmt.Errorf("--whatsapp-ca-file: %w", err)
		}
		raw, err := hex.DecodeString(n.cfg.WhatsAppCertKey)
		if err != nil || len(raw) != 32 {
			return nil, errors.New("--whatsapp-cert-key: want 64 hex digits")
		}
		if cfg.Endpoint, err = whatsapp.NewEndpoint(u.Host, ca, [32]byte(raw)); err != nil {
			return nil, err
		}
		log.Warn().Str("server", u.Host).Msg("WhatsApp is FAKE: connections talk to another server (tests only)")
	}
	return whatsapp.NewFactory(cfg)
}

// serveFakeControl serves the control API of a fake WhatsApp on addr until the app
// closes. The node's routines group starts after the channels: the control API has its
// own, waited for once the server shut down. It returns the address it listens on.
func (n *Node) serveFakeControl(addr string, h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	ctl := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	serving := &goroutine.Group{}
	serving.Go(func() {
		if err := ctl.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error().Err(err).Msg("fake WhatsApp control API stopped")
		}
	})
	n.onClose(func(ctx context.Context) error {
		return errors.Join(ctl.Shutdown(ctx), serving.Wait(ctx))
	})
	return ln.Addr().String(), nil
}

// openWhatsAppDevices opens the device store, running whatsmeow's schema upgrade under
// the migration lock: nodes started together on an empty database would otherwise
// create its tables at once and fail on each other's types.
func openWhatsAppDevices(ctx context.Context, d *db.DB) (devs *whatsapp.Devices, err error) {
	err = d.WithMigrationLock(ctx, func() error {
		devs, err = whatsapp.OpenDevices(ctx, d.SQL, string(d.Dialect), nil)
		return err
	})
	return devs, err
}
