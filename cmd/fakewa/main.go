// Command fakewa runs the wire-level fake WhatsApp Web server of
// transport/channel/whatsapp/fakewa for tests that must not reach WhatsApp: a TLS
// websocket speaking WhatsApp's frames, Noise XX handshake and binary nodes, and a
// control API (POST /scan {"code": "..."}) that plays the phone scanning a QR code.
//
//	fakewa --addr 127.0.0.1:9443 --control 127.0.0.1:9444 --ca-out /tmp/fakewa.pem
//
// It prints the flags that point `atende serve` at it (--whatsapp-ws-url,
// --whatsapp-ca-file, --whatsapp-cert-key) and serves until interrupted.
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"atende/goroutine"
	"atende/transport/channel/whatsapp/fakewa"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fakewa:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("fakewa", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address of the fake WhatsApp Web server (TLS websocket)")
	control := fs.String("control", "127.0.0.1:0", "listen address of the control API (POST /scan)")
	caOut := fs.String("ca-out", filepath.Join(os.TempDir(), "fakewa-ca.pem"), "where to write the server's TLS certificate (PEM)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv, err := fakewa.NewServer(*addr)
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := os.WriteFile(*caOut, srv.CertPEM, 0o600); err != nil {
		return err
	}
	ctl := &http.Server{Handler: srv.Control(), ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp", *control)
	if err != nil {
		return err
	}
	goroutine.Go(func() { _ = ctl.Serve(ln) })
	fmt.Printf("--whatsapp-ws-url wss://%s/ws/chat --whatsapp-ca-file %s --whatsapp-cert-key %s\n", srv.Addr, *caOut, hex.EncodeToString(srv.RootKey[:]))
	fmt.Printf("control: http://%s/scan\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return ctl.Shutdown(sctx)
}
