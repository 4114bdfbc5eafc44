package whatsapp

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"sync"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	waLog "go.mau.fi/whatsmeow/util/log"
	"google.golang.org/protobuf/proto"

	"atende/engine"
	"atende/persistence/db"
	"atende/transport/media"
)

// offlineClient is a real whatsmeow client on a real device store whose network half
// is replaced: Connect does not dial, sends and uploads are recorded. Events reach the
// adapter through whatsmeow's own dispatcher (DangerousInternals().DispatchEvent).
type offlineClient struct {
	*whatsmeow.Client

	mu       sync.Mutex
	loggedIn bool
	sent     []sentMsg
	uploads  int
	rejected []string
	media    []byte
	sendErr  error
}

type sentMsg struct {
	to  types.JID
	id  string
	msg *waE2E.Message
}

func (o *offlineClient) Connect() error { return nil }
func (o *offlineClient) Disconnect()    {}
func (o *offlineClient) IsLoggedIn() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.loggedIn
}
func (o *offlineClient) Logout(ctx context.Context) error { return errors.New("offline") }

func (o *offlineClient) SendMessage(ctx context.Context, to types.JID, m *waE2E.Message, extra ...whatsmeow.SendRequestExtra) (whatsmeow.SendResponse, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sendErr != nil {
		return whatsmeow.SendResponse{}, o.sendErr
	}
	id := ""
	if len(extra) > 0 {
		id = string(extra[0].ID)
	}
	o.sent = append(o.sent, sentMsg{to: to, id: id, msg: m})
	return whatsmeow.SendResponse{ID: types.MessageID(id), Timestamp: time.Now()}, nil
}

func (o *offlineClient) Upload(ctx context.Context, data []byte, t whatsmeow.MediaType) (whatsmeow.UploadResponse, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.uploads++
	return whatsmeow.UploadResponse{URL: "https://mmg.example/x", DirectPath: "/v/x", MediaKey: []byte{1}, FileLength: uint64(len(data))}, nil
}

func (o *offlineClient) Download(ctx context.Context, m whatsmeow.DownloadableMessage) ([]byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.media == nil {
		return nil, errors.New("media gone")
	}
	return o.media, nil
}

func (o *offlineClient) RejectCall(ctx context.Context, from types.JID, callID string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rejected = append(o.rejected, callID)
	return nil
}

func (o *offlineClient) sentCopy() []sentMsg {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]sentMsg(nil), o.sent...)
}

// dispatch hands evt to every handler of the client, as whatsmeow's socket reader
// would; it reports whether the handlers accepted it.
func (o *offlineClient) dispatch(evt any) bool {
	//lint:ignore SA1019 the test hands events to the handlers as whatsmeow's socket reader does
	return !o.DangerousInternals().DispatchEvent(evt)
}

// recSink records what the channel hands it; block, when set, holds Inbound.
type recSink struct {
	mu       sync.Mutex
	inbound  []engine.InboundMessage
	receipts []engine.Receipt
	statuses []engine.StatusChange
	block    chan struct{}
	changed  chan struct{}
}

func newSink() *recSink { return &recSink{changed: make(chan struct{}, 1)} }

func (s *recSink) note() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *recSink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	if s.block != nil {
		select {
		case <-s.block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	s.inbound = append(s.inbound, m)
	s.mu.Unlock()
	s.note()
	return nil
}

func (s *recSink) Receipt(ctx context.Context, r engine.Receipt) error {
	s.mu.Lock()
	s.receipts = append(s.receipts, r)
	s.mu.Unlock()
	s.note()
	return nil
}

func (s *recSink) Status(ctx context.Context, st engine.StatusChange) error {
	s.mu.Lock()
	s.statuses = append(s.statuses, st)
	s.mu.Unlock()
	s.note()
	return nil
}

// wait polls cond (under the sink's lock) until it holds or 5 s pass.
func (s *recSink) wait(t *testing.T, what string, cond func(s *recSink) bool) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		s.mu.Lock()
		ok := cond(s)
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-s.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("timed out waiting for %s; statuses %+v, %d inbound, receipts %+v", what, s.statuses, len(s.inbound), s.receipts)
		}
	}
}

func (s *recSink) lastStatus() engine.StatusChange {
	if len(s.statuses) == 0 {
		return engine.StatusChange{}
	}
	return s.statuses[len(s.statuses)-1]
}

type settingsStub struct{ acceptCalls string }

func (s settingsStub) Get(ctx context.Context, companyID engine.ID, key string) (engine.Setting, error) {
	if key != engine.SettingAcceptCalls {
		return engine.Setting{}, &engine.Error{Code: engine.ErrNoSettingFound}
	}
	return engine.Setting{Key: key, Value: s.acceptCalls}, nil
}

// rig is a started channel on a real device store with an offline client.
type rig struct {
	devices *Devices
	factory *Factory
	ch      *Channel
	sink    *recSink
	client  *offlineClient
	dev     *store.Device
	media   *media.Store
}

type rigOpts struct {
	queue    int
	settings SettingGetter
	paired   bool
}

var ownJID = types.NewJID("5511900001111", types.DefaultUserServer)

func newRig(t testing.TB, d *db.DB, o rigOpts) *rig {
	t.Helper()
	ctx := context.Background()
	devs, err := OpenDevices(ctx, d.SQL, string(d.Dialect), waLog.Noop)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: bytes.Repeat([]byte("k"), 32)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	r := &rig{devices: devs, sink: newSink(), media: ms}
	if o.paired {
		dev := devs.Container().NewDevice()
		jid := ownJID
		jid.Device = 7
		savePaired(t, dev, jid)
		if err := devs.Bind(ctx, 1, jid); err != nil {
			t.Fatal(err)
		}
	}
	r.factory, err = NewFactory(Config{Devices: devs, Media: ms, Settings: o.settings, QueueSize: o.queue,
		NewClient: func(dev *store.Device, log waLog.Logger) (Client, error) {
			r.dev = dev
			r.client = &offlineClient{Client: whatsmeow.NewClient(dev, waLog.Noop), loggedIn: dev.ID != nil, media: pngBytes(t)}
			return r.client, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := r.factory.NewChannel(engine.Connection{ID: 1, CompanyID: 3, Channel: engine.ChannelWhatsApp})
	if err != nil {
		t.Fatal(err)
	}
	r.ch = ch.(*Channel)
	if err := r.ch.Start(ctx, r.sink); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.ch.Stop(ctx)
	})
	return r
}

func pngBytes(t testing.TB) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var customer = types.NewJID("5511988887777", types.DefaultUserServer)

// textEvent is a one-to-one text message from the customer.
func textEvent(id, body string) *events.Message {
	return &events.Message{
		Info: types.MessageInfo{
			MessageSource: types.MessageSource{Chat: customer, Sender: customer},
			ID:            types.MessageID(id), PushName: "Maria", Timestamp: time.Unix(1700000000, 0),
		},
		Message: &waE2E.Message{Conversation: proto.String(body)},
	}
}

// savePaired stores dev as paired to jid, as whatsmeow does on pair-success.
func savePaired(t testing.TB, dev *store.Device, jid types.JID) {
	t.Helper()
	dev.ID = &jid
	dev.Account = &waAdv.ADVSignedDeviceIdentity{Details: []byte{1}, AccountSignature: make([]byte, 64),
		AccountSignatureKey: make([]byte, 32), DeviceSignature: make([]byte, 64)}
	if err := dev.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
}
