package fakewa

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"go.mau.fi/libsignal/ecc"
	waBinary "go.mau.fi/whatsmeow/binary"
	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/proto/waCert"
	"go.mau.fi/whatsmeow/proto/waWa6"
	"go.mau.fi/whatsmeow/socket"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/util/keys"
	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/hkdf"
	"google.golang.org/protobuf/proto"

	"atende/goroutine"
)

// Server is a wire-level fake of WhatsApp Web's server: TLS websocket at /ws/chat,
// WhatsApp's frame format and Noise_XX_25519_AESGCM_SHA256 handshake with a noise
// certificate chain signed by its own root key (clients must trust RootKey through
// whatsmeow.WACertPubKey), then binary XML nodes (whatsmeow's binary package). An
// unpaired client gets a pair-device request (so whatsmeow emits QR codes); Scan with
// one of those codes sends pair-success with an ADV identity HMAC'd with the code's
// adv secret and signed by a fake phone identity key; after the client's
// pair-device-sign the server ends the stream with code 515, the client reconnects,
// logs in and gets success. Group IQs are answered from the server's groups (groups.go);
// IQs it does not know are answered with an empty result.
type Server struct {
	// static after NewServer
	RootKey  [32]byte // noise certificate root public key (whatsmeow.WACertPubKey)
	CertPEM  []byte   // TLS certificate of web.whatsapp.com (self-signed)
	Addr     string   // host:port the TLS listener is on
	certs    []byte   // marshalled waCert.CertChain
	static   *keys.KeyPair
	phone    *keys.KeyPair
	ln       net.Listener
	srv      *http.Server
	serverOK chan struct{}

	mu       sync.Mutex          // guards the fields below
	sessions map[string]*session // ref → unpaired session waiting for a scan
	logins   int

	groups groupBook // the groups clients created (groups.go)
}

// NewServer listens on addr ("127.0.0.1:0" for any port) and serves until Close.
func NewServer(addr string) (*Server, error) {
	s := &Server{static: keys.NewKeyPair(), phone: keys.NewKeyPair(), sessions: make(map[string]*session), serverOK: make(chan struct{})}
	root, inter := keys.NewKeyPair(), keys.NewKeyPair()
	s.RootKey = *root.Pub
	interDetails, _ := proto.Marshal(&waCert.CertChain_NoiseCertificate_Details{Serial: proto.Uint32(1), IssuerSerial: proto.Uint32(0),
		Key: inter.Pub[:], NotBefore: proto.Uint64(uint64(time.Now().Add(-time.Hour).Unix())), NotAfter: proto.Uint64(uint64(time.Now().Add(24 * time.Hour).Unix()))})
	leafDetails, _ := proto.Marshal(&waCert.CertChain_NoiseCertificate_Details{Serial: proto.Uint32(2), IssuerSerial: proto.Uint32(1),
		Key: s.static.Pub[:], NotBefore: proto.Uint64(uint64(time.Now().Add(-time.Hour).Unix())), NotAfter: proto.Uint64(uint64(time.Now().Add(24 * time.Hour).Unix()))})
	interSig := ecc.CalculateSignature(ecc.NewDjbECPrivateKey(*root.Priv), interDetails)
	leafSig := ecc.CalculateSignature(ecc.NewDjbECPrivateKey(*inter.Priv), leafDetails)
	s.certs, _ = proto.Marshal(&waCert.CertChain{
		Intermediate: &waCert.CertChain_NoiseCertificate{Details: interDetails, Signature: interSig[:]},
		Leaf:         &waCert.CertChain_NoiseCertificate{Details: leafDetails, Signature: leafSig[:]},
	})
	cert, certPEM, err := selfSigned("web.whatsapp.com")
	if err != nil {
		return nil, err
	}
	s.CertPEM = certPEM
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.ln, s.Addr = ln, ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/ws/chat", s.serveWS)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	goroutine.Go(func() { _ = s.srv.ServeTLS(ln, "", "") })
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// HTTPClient is an http.Client for whatsmeow's SetWebsocketHTTPClient: every dial
// goes to the fake, whose certificate it trusts for web.whatsapp.com.
func HTTPClient(addr string, certPEM []byte) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certPEM) {
		return nil, errors.New("fakewa: no certificate in PEM")
	}
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		DialContext:     func(ctx context.Context, _, _ string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) },
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "web.whatsapp.com", MinVersion: tls.VersionTLS12},
	}}, nil
}

// Logins counts the successful logins (success nodes sent).
func (s *Server) Logins() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins
}

// session is one client's socket after the handshake.
type session struct {
	s      *Server
	conn   *websocket.Conn
	ctx    context.Context
	read   cipher.AEAD
	write  cipher.AEAD
	rc, wc uint32
	wmu    sync.Mutex
	frames [][]byte
	buf    []byte
	paired chan types.JID
	user   string // the phone number of a logged-in account; "" while pairing
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	conn.SetReadLimit(4 << 20)
	defer conn.CloseNow()
	ss := &session{s: s, conn: conn, ctx: r.Context()}
	if err := ss.run(); err != nil && !errors.Is(err, io.EOF) {
		conn.Close(websocket.StatusInternalError, "fakewa: "+err.Error())
	}
}

// nextFrame reads one length-prefixed frame; the first message starts with the WA header.
func (ss *session) nextFrame(first bool) ([]byte, error) {
	for len(ss.frames) == 0 {
		_, msg, err := ss.conn.Read(ss.ctx)
		if err != nil {
			return nil, err
		}
		if first && len(ss.buf) == 0 {
			if !bytes.HasPrefix(msg, socket.WAConnHeader) {
				return nil, errors.New("missing WA header")
			}
			msg = msg[len(socket.WAConnHeader):]
			first = false
		}
		ss.buf = append(ss.buf, msg...)
		for len(ss.buf) >= 3 {
			n := int(ss.buf[0])<<16 | int(ss.buf[1])<<8 | int(ss.buf[2])
			if len(ss.buf) < 3+n {
				break
			}
			ss.frames = append(ss.frames, ss.buf[3:3+n])
			ss.buf = ss.buf[3+n:]
		}
	}
	f := ss.frames[0]
	ss.frames = ss.frames[1:]
	return f, nil
}

func (ss *session) sendFrame(data []byte) error {
	frame := make([]byte, 3+len(data))
	frame[0], frame[1], frame[2] = byte(len(data)>>16), byte(len(data)>>8), byte(len(data))
	copy(frame[3:], data)
	return ss.conn.Write(ss.ctx, websocket.MessageBinary, frame)
}

// noise is the server's half of the handshake state (the same sequence of operations
// as the client's, mirrored).
type noise struct {
	hash, salt []byte
	key        cipher.AEAD
	counter    uint32
}

func newAEAD(k []byte) cipher.AEAD {
	b, _ := aes.NewCipher(k)
	g, _ := cipher.NewGCM(b)
	return g
}

func iv(n uint32) []byte {
	v := make([]byte, 12)
	binary.BigEndian.PutUint32(v[8:], n)
	return v
}

func (n *noise) auth(data []byte) {
	h := sha256.Sum256(append(append([]byte(nil), n.hash...), data...))
	n.hash = h[:]
}

func (n *noise) encrypt(p []byte) []byte {
	c := n.key.Seal(nil, iv(n.counter), p, n.hash)
	n.counter++
	n.auth(c)
	return c
}

func (n *noise) decrypt(c []byte) ([]byte, error) {
	p, err := n.key.Open(nil, iv(n.counter), c, n.hash)
	n.counter++
	if err == nil {
		n.auth(c)
	}
	return p, err
}

func expand(salt, data []byte) (a, b []byte) {
	h := hkdf.New(sha256.New, data, salt, nil)
	a, b = make([]byte, 32), make([]byte, 32)
	_, _ = io.ReadFull(h, a)
	_, _ = io.ReadFull(h, b)
	return a, b
}

func (n *noise) mix(priv, pub []byte) error {
	secret, err := curve25519.X25519(priv, pub)
	if err != nil {
		return err
	}
	n.counter = 0
	var k []byte
	n.salt, k = expand(n.salt, secret)
	n.key = newAEAD(k)
	return nil
}

func (ss *session) run() error {
	hello, err := ss.nextFrame(true)
	if err != nil {
		return err
	}
	var hm waWa6.HandshakeMessage
	if err := proto.Unmarshal(hello, &hm); err != nil || len(hm.GetClientHello().GetEphemeral()) != 32 {
		return errors.New("bad client hello")
	}
	clientEph := hm.GetClientHello().GetEphemeral()
	n := &noise{hash: []byte(socket.NoiseStartPattern)}
	n.salt, n.key = n.hash, newAEAD(n.hash)
	n.auth(socket.WAConnHeader)
	n.auth(clientEph)
	eph := keys.NewKeyPair()
	n.auth(eph.Pub[:])
	if err := n.mix(eph.Priv[:], clientEph); err != nil {
		return err
	}
	staticCT := n.encrypt(ss.s.static.Pub[:])
	if err := n.mix(ss.s.static.Priv[:], clientEph); err != nil {
		return err
	}
	certCT := n.encrypt(ss.s.certs)
	out, _ := proto.Marshal(&waWa6.HandshakeMessage{ServerHello: &waWa6.HandshakeMessage_ServerHello{Ephemeral: eph.Pub[:], Static: staticCT, Payload: certCT}})
	if err := ss.sendFrame(out); err != nil {
		return err
	}
	finish, err := ss.nextFrame(false)
	if err != nil {
		return err
	}
	hm.Reset()
	if err := proto.Unmarshal(finish, &hm); err != nil {
		return errors.New("bad client finish")
	}
	clientStatic, err := n.decrypt(hm.GetClientFinish().GetStatic())
	if err != nil || len(clientStatic) != 32 {
		return errors.New("bad client static")
	}
	if err := n.mix(eph.Priv[:], clientStatic); err != nil {
		return err
	}
	payloadRaw, err := n.decrypt(hm.GetClientFinish().GetPayload())
	if err != nil {
		return errors.New("bad client payload")
	}
	var payload waWa6.ClientPayload
	if err := proto.Unmarshal(payloadRaw, &payload); err != nil {
		return errors.New("bad client payload")
	}
	clientWrite, clientRead := expand(n.salt, nil)
	ss.read, ss.write = newAEAD(clientWrite), newAEAD(clientRead)

	if payload.Username != nil { // a paired device logging in
		ss.user = fmt.Sprint(payload.GetUsername())
		ss.s.mu.Lock()
		ss.s.logins++
		ss.s.mu.Unlock()
		if err := ss.sendNode(waBinary.Node{Tag: "success", Attrs: waBinary.Attrs{"t": fmt.Sprint(time.Now().Unix())}}); err != nil {
			return err
		}
		return ss.serve()
	}
	// Registration: ask for pairing with six refs (whatsmeow shows one QR code each).
	refs := make([]waBinary.Node, 6)
	ss.paired = make(chan types.JID, 1)
	ss.s.mu.Lock()
	for i := range refs {
		ref := "2@" + randomText(32)
		refs[i] = waBinary.Node{Tag: "ref", Content: []byte(ref)}
		ss.s.sessions[ref] = ss
	}
	ss.s.mu.Unlock()
	defer ss.forget()
	if err := ss.sendNode(waBinary.Node{Tag: "iq", Attrs: waBinary.Attrs{"from": types.ServerJID, "type": "set", "id": randomText(8), "xmlns": "md"},
		Content: []waBinary.Node{{Tag: "pair-device", Content: refs}}}); err != nil {
		return err
	}
	return ss.serve()
}

func (ss *session) forget() {
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	for ref, x := range ss.s.sessions {
		if x == ss {
			delete(ss.s.sessions, ref)
		}
	}
}

func (ss *session) sendNode(node waBinary.Node) error {
	data, err := waBinary.Marshal(node)
	if err != nil {
		return err
	}
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	c := ss.write.Seal(nil, iv(ss.wc), data, nil)
	ss.wc++
	return ss.sendFrame(c)
}

// serve answers the client's nodes until the socket closes.
func (ss *session) serve() error {
	for {
		f, err := ss.nextFrame(false)
		if err != nil {
			return err
		}
		plain, err := ss.read.Open(nil, iv(ss.rc), f, nil)
		ss.rc++
		if err != nil {
			return errors.New("bad frame")
		}
		data, err := waBinary.Unpack(plain)
		if err != nil {
			return err
		}
		node, err := waBinary.Unmarshal(data)
		if err != nil {
			return err
		}
		if node.Tag != "iq" {
			continue
		}
		id, _ := node.Attrs["id"].(string)
		if node.Attrs["type"] == "result" {
			if len(node.GetChildren()) > 0 && node.GetChildren()[0].Tag == "pair-device-sign" {
				// The client confirmed the pairing: restart the stream. The client closes
				// this socket itself on 515 and reconnects to log in.
				if err := ss.sendNode(waBinary.Node{Tag: "stream:error", Attrs: waBinary.Attrs{"code": "515"}}); err != nil {
					return err
				}
			}
			continue
		}
		answer := waBinary.Node{Tag: "iq", Attrs: waBinary.Attrs{"from": types.ServerJID, "type": "result", "id": id}}
		if typ, content, ok := ss.answerGroupIQ(*node); ok {
			if to, isJID := node.Attrs["to"].(types.JID); isJID {
				answer.Attrs["from"] = to
			}
			answer.Attrs["type"], answer.Content = typ, content
		} else if node.Attrs["xmlns"] == "encrypt" && node.Attrs["type"] == "get" {
			answer.Content = []waBinary.Node{{Tag: "count", Attrs: waBinary.Attrs{"value": 50}}}
		}
		if err := ss.sendNode(answer); err != nil {
			return err
		}
	}
}

// ScanWire completes the pairing of the client showing code (ref,noise,identity,adv),
// as the phone does: pair-success with an ADV identity HMAC'd with the adv secret of
// the code and signed by the phone's identity key.
func (s *Server) ScanWire(code string) (types.JID, error) {
	parts := strings.Split(code, ",")
	if len(parts) != 4 {
		return types.EmptyJID, errors.New("fakewa: not a WhatsApp QR code")
	}
	s.mu.Lock()
	ss := s.sessions[parts[0]]
	s.mu.Unlock()
	if ss == nil {
		return types.EmptyJID, errors.New("fakewa: no client shows that code")
	}
	identity, err1 := base64.StdEncoding.DecodeString(parts[2])
	adv, err2 := base64.StdEncoding.DecodeString(parts[3])
	if err1 != nil || err2 != nil || len(identity) != 32 {
		return types.EmptyJID, errors.New("fakewa: malformed QR code")
	}
	ss.forget()
	rawID := make([]byte, 4)
	_, _ = rand.Read(rawID)
	details, _ := proto.Marshal(&waAdv.ADVDeviceIdentity{RawID: proto.Uint32(binary.BigEndian.Uint32(rawID)),
		Timestamp: proto.Uint64(uint64(time.Now().Unix())), KeyIndex: proto.Uint32(1)})
	msg := append(append([]byte{6, 0}, details...), identity...)
	sig := ecc.CalculateSignature(ecc.NewDjbECPrivateKey(*s.phone.Priv), msg)
	signed, _ := proto.Marshal(&waAdv.ADVSignedDeviceIdentity{Details: details, AccountSignatureKey: s.phone.Pub[:], AccountSignature: sig[:]})
	mac := hmac.New(sha256.New, adv)
	mac.Write(signed)
	container, _ := proto.Marshal(&waAdv.ADVSignedDeviceIdentityHMAC{Details: signed, HMAC: mac.Sum(nil)})
	num, _ := rand.Int(rand.Reader, big.NewInt(1e8))
	jid := types.NewADJID(fmt.Sprintf("55119%08d", num.Int64()), 0, 3)
	lid := types.NewADJID(fmt.Sprintf("1%014d", num.Int64()), 0, 3)
	lid.Server = types.HiddenUserServer
	err := ss.sendNode(waBinary.Node{Tag: "iq", Attrs: waBinary.Attrs{"from": types.ServerJID, "type": "set", "id": randomText(8), "xmlns": "md"},
		Content: []waBinary.Node{{Tag: "pair-success", Content: []waBinary.Node{
			{Tag: "device-identity", Content: container},
			{Tag: "platform", Attrs: waBinary.Attrs{"name": "android"}},
			{Tag: "device", Attrs: waBinary.Attrs{"jid": jid, "lid": lid}},
			{Tag: "biz", Attrs: waBinary.Attrs{"name": ""}},
		}}}})
	if err != nil {
		return types.EmptyJID, err
	}
	return jid, nil
}

func selfSigned(host string) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// Control is the fake's control API: POST /scan {"code": "..."} plays the phone
// scanning a QR code (200 {"jid", "number"}; 404 when no client shows the code, 400
// for a malformed body); GET /groups lists the groups clients created (FakeGroup).
func (s *Server) Control() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /groups", s.serveGroups)
	mux.HandleFunc("POST /scan", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Code string `json:"code"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&body); err != nil || body.Code == "" {
			http.Error(w, `body must be {"code": "..."}`, http.StatusBadRequest)
			return
		}
		jid, err := s.ScanWire(body.Code)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"jid": jid.String(), "number": jid.User})
	})
	return mux
}
