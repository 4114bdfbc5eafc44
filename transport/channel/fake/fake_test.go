package fake_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/channel/fake"
)

// recordingSink records what the channel delivers; it de-duplicates inbound messages
// on ProviderID as the connection actor's sink does.
type recordingSink struct {
	mu       sync.Mutex
	seen     map[string]bool
	inbound  []engine.InboundMessage
	calls    int // Inbound calls, duplicates included
	receipts []engine.Receipt
	statuses []engine.StatusChange
	failNext error
}

func newSink() *recordingSink { return &recordingSink{seen: map[string]bool{}} }

func (s *recordingSink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if err := s.failNext; err != nil {
		s.failNext = nil
		return err
	}
	if !s.seen[m.ProviderID] {
		s.seen[m.ProviderID] = true
		s.inbound = append(s.inbound, m)
	}
	return nil
}

func (s *recordingSink) Receipt(ctx context.Context, r engine.Receipt) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.receipts = append(s.receipts, r)
	return nil
}

func (s *recordingSink) Status(ctx context.Context, st engine.StatusChange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses = append(s.statuses, st)
	return nil
}

// refuseBad fails sends to "bad" with a permanent error.
func refuseBad(m engine.OutboundMessage) error {
	if m.To == "bad" {
		return engine.E(engine.ErrWappInvalidContact)
	}
	return nil
}

func TestSend(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name       string
		opts       fake.Options
		sends      int
		wantFailed int
		wantIDs    []string
	}{
		{name: "every send succeeds", sends: 3, wantIDs: []string{"fake-out:1", "fake-out:2", "fake-out:3"}},
		{name: "first two fail temporarily", opts: fake.Options{FailFirst: 2}, sends: 4, wantFailed: 2, wantIDs: []string{"fake-out:1", "fake-out:2"}},
		{
			name:       "send error hook",
			opts:       fake.Options{SendError: refuseBad},
			sends:      3,
			wantFailed: 1,
			wantIDs:    []string{"fake-out:1", "fake-out:2"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ch := fake.New(tc.opts)
			failed := 0
			for i := range tc.sends {
				to := "5511999990000"
				if i == 1 && tc.opts.SendError != nil {
					to = "bad"
				}
				_, err := ch.Send(ctx, engine.OutboundMessage{MessageID: engine.ID(i + 1), To: to, Body: "oi"})
				if err != nil {
					failed++
					if tc.opts.FailFirst > 0 && !errors.Is(err, engine.ErrChannelTemporary) {
						t.Fatalf("send %d: %v is not temporary", i, err)
					}
					if tc.opts.SendError != nil && errors.Is(err, engine.ErrChannelTemporary) {
						t.Fatalf("send %d: hook error became temporary: %v", i, err)
					}
				}
			}
			sent := ch.Sent()
			if failed != tc.wantFailed || len(sent) != len(tc.wantIDs) || ch.Attempts() != tc.sends {
				t.Fatalf("failed %d, sent %d, attempts %d", failed, len(sent), ch.Attempts())
			}
			for i, s := range sent {
				if s.ProviderID != tc.wantIDs[i] {
					t.Fatalf("sent[%d] = %s, want %s", i, s.ProviderID, tc.wantIDs[i])
				}
			}
		})
	}
}

func TestInject(t *testing.T) {
	ctx := context.Background()
	t.Run("not started", func(t *testing.T) {
		ch := fake.New(fake.Options{})
		if err := ch.InjectInbound(ctx, fake.Text("5511", 1, "oi")); !errors.Is(err, fake.ErrNotStarted) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("inbound, receipts and statuses reach the sink", func(t *testing.T) {
		ch := fake.New(fake.Options{})
		sink := newSink()
		if err := ch.Start(ctx, sink); err != nil {
			t.Fatal(err)
		}
		if err := ch.InjectQRCode(ctx, "2@abc"); err != nil {
			t.Fatal(err)
		}
		if err := ch.InjectConnected(ctx, "5511988887777"); err != nil {
			t.Fatal(err)
		}
		if err := ch.InjectInbound(ctx, fake.Text("5511", 1, "oi")); err != nil {
			t.Fatal(err)
		}
		if err := ch.InjectInbound(ctx, engine.InboundMessage{From: engine.ChannelContact{Number: "5511"}, Body: "sem id"}); err != nil {
			t.Fatal(err)
		}
		if err := ch.InjectReceipt(ctx, engine.Receipt{ProviderID: "fake-out:1", Ack: engine.AckRead}); err != nil {
			t.Fatal(err)
		}
		if len(sink.statuses) != 2 || sink.statuses[0].Status != engine.ConnQRCode || sink.statuses[0].QRCode != "2@abc" ||
			sink.statuses[1].Status != engine.ConnConnected || sink.statuses[1].Number != "5511988887777" {
			t.Fatalf("statuses %+v", sink.statuses)
		}
		if len(sink.inbound) != 2 || sink.inbound[0].ProviderID != "fake-in:5511:1" || sink.inbound[1].ProviderID != "fake-in:2" {
			t.Fatalf("inbound %+v", sink.inbound)
		}
		if want := time.Date(2026, 1, 1, 12, 0, 2, 0, time.UTC); !sink.inbound[1].At.Equal(want) {
			t.Fatalf("At %s, want %s", sink.inbound[1].At, want)
		}
		if len(sink.receipts) != 1 || sink.receipts[0].Ack != engine.AckRead {
			t.Fatalf("receipts %+v", sink.receipts)
		}
	})
	t.Run("duplicate redelivers every inbound message", func(t *testing.T) {
		ch := fake.New(fake.Options{Duplicate: true})
		sink := newSink()
		_ = ch.Start(ctx, sink)
		for i := 1; i <= 3; i++ {
			if err := ch.InjectInbound(ctx, fake.Text("5511", i, "oi")); err != nil {
				t.Fatal(err)
			}
		}
		if sink.calls != 6 || len(sink.inbound) != 3 {
			t.Fatalf("calls %d, recorded %d", sink.calls, len(sink.inbound))
		}
	})
	t.Run("sink errors come back", func(t *testing.T) {
		ch := fake.New(fake.Options{})
		sink := newSink()
		_ = ch.Start(ctx, sink)
		boom := errors.New("journal down")
		sink.failNext = boom
		if err := ch.InjectInbound(ctx, fake.Text("5511", 1, "oi")); !errors.Is(err, boom) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("stop ends deliveries until the next start", func(t *testing.T) {
		ch := fake.New(fake.Options{})
		_ = ch.Start(ctx, newSink())
		_ = ch.Stop(ctx)
		if err := ch.InjectStatus(ctx, engine.StatusChange{Status: engine.ConnConnected}); !errors.Is(err, fake.ErrNotStarted) {
			t.Fatalf("got %v", err)
		}
		sink := newSink()
		_ = ch.Start(ctx, sink)
		if err := ch.InjectInbound(ctx, fake.Text("5511", 1, "oi")); err != nil || len(sink.inbound) != 1 {
			t.Fatalf("after restart: %v, %d", err, len(sink.inbound))
		}
		if ch.Starts() != 2 || ch.Stops() != 1 {
			t.Fatalf("starts %d stops %d", ch.Starts(), ch.Stops())
		}
	})
	t.Run("start error", func(t *testing.T) {
		boom := errors.New("no session")
		ch := fake.New(fake.Options{StartError: boom})
		if err := ch.Start(ctx, newSink()); !errors.Is(err, boom) || ch.Started() {
			t.Fatalf("got %v, started %v", err, ch.Started())
		}
	})
}

func TestFactory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	f := fake.NewFactory(fake.Options{})
	f.Set(2, fake.Options{FailFirst: 1})

	waited := make(chan *fake.Channel, 1)
	go func() {
		c, err := f.Wait(ctx, 2)
		if err != nil {
			t.Error(err)
		}
		waited <- c
	}()

	a1, err := f.NewChannel(engine.Connection{ID: 1})
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := f.NewChannel(engine.Connection{ID: 1})
	if a1 != a2 || f.Get(1) != a1 {
		t.Fatal("the factory does not remember the fake of connection 1")
	}
	b, _ := f.NewChannel(engine.Connection{ID: 2})
	if err := b.Start(ctx, newSink()); err != nil {
		t.Fatal(err)
	}
	if got := <-waited; got != b {
		t.Fatal("Wait returned another fake")
	}
	if _, err := b.Send(ctx, engine.OutboundMessage{To: "x"}); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("per-connection options not applied: %v", err)
	}
	if _, err := a1.Send(ctx, engine.OutboundMessage{To: "x"}); err != nil {
		t.Fatalf("default options not applied: %v", err)
	}
	if got := f.Connections(); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("connections %v", got)
	}
	if f.Get(3) != nil {
		t.Fatal("Get invented a fake")
	}
	if _, err := f.NewChannel(engine.Connection{}); err == nil {
		t.Fatal("a connection without id got a fake")
	}
}

func TestWaitSent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ch := fake.New(fake.Options{})
	done := make(chan []fake.Sent, 1)
	go func() {
		s, err := ch.WaitSent(ctx, 2)
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	for i := range 2 {
		if _, err := ch.Send(ctx, engine.OutboundMessage{MessageID: engine.ID(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	if s := <-done; len(s) != 2 || s[1].Message.MessageID != 2 {
		t.Fatalf("WaitSent %+v", s)
	}
	short, cancelShort := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancelShort()
	if _, err := ch.WaitSent(short, 3); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
}
