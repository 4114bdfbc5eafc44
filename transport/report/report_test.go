package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
)

func TestCleanText(t *testing.T) {
	c := newTextCleaner()
	for in, want := range map[string]string{
		"Olá, ação, pão, você, é, à, ü": "Olá, ação, pão, você, é, à, ü",
		"Bom dia 😀":                     "Bom dia [emoji]",
		"👍🏽👨‍👩‍👧 ok":                    "[emoji] ok", // modifiers and joiners: one placeholder
		"❤️ a\tb\r\nc":                  "[emoji] a b\nc",
		"🇧🇷 Brasil":                     "[emoji] Brasil",
		"zero\u200bwidth\x00\x07bell":   "zerowidthbell",
		"中文":                            "?",
		"ok\xffbad":                     "ok\uFFFDbad", // invalid UTF-8: U+FFFD, which the font draws
		"":                              "",
	} {
		if got := c.clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMakeThumbnail(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 800, 400))
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	out, err := MakeThumbnail(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(out))
	if err != nil || format != "jpeg" || cfg.Width != ThumbPixels || cfg.Height != ThumbPixels/2 {
		t.Fatalf("thumbnail %v %s %dx%d", err, format, cfg.Width, cfg.Height)
	}
	// Hostile input: not an image, a truncated one, and a header claiming a huge
	// picture (a decompression bomb) are refused without decoding pixels.
	huge := append([]byte(nil), b.Bytes()[:33]...)
	copy(huge[16:24], []byte{0, 1, 0, 0, 0, 1, 0, 0}) // IHDR 65536 x 65536
	for name, in := range map[string][]byte{"text": []byte("not an image"), "truncated": b.Bytes()[:60], "bomb": huge, "empty": nil} {
		if _, err := MakeThumbnail(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: thumbnail made", name)
		}
	}
}

// synthetic is a Pager of n generated messages that never holds them: each page is
// made on request, the way the read model answers them.
type synthetic struct{ n int }

func (s synthetic) ListMessages(ctx context.Context, companyID, ticketID engine.ID, q engine.MessageQuery) (engine.MessagePage, error) {
	end := s.n
	if q.Cursor != "" {
		v, err := strconv.Atoi(q.Cursor)
		if err != nil {
			return engine.MessagePage{}, err
		}
		end = v
	}
	start := max(0, end-engine.MessagePageSize)
	p := engine.MessagePage{HasMore: start > 0}
	if p.HasMore {
		p.NextCursor = strconv.Itoa(start)
	}
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i := start; i < end; i++ {
		p.Messages = append(p.Messages, engine.Message{ID: engine.ID(i + 1), FromMe: i%2 == 0, SenderID: 5,
			Body:      fmt.Sprintf("Mensagem %d: olá, tudo bem? Preciso de ajuda com o pedido número %d, obrigado 😀", i, 9000+i),
			CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	return p, nil
}

// looping answers the same cursor forever: Render must stop, not spin.
type looping struct{}

func (looping) ListMessages(ctx context.Context, companyID, ticketID engine.ID, q engine.MessageQuery) (engine.MessagePage, error) {
	return engine.MessagePage{Messages: []engine.Message{{Body: "x"}}, HasMore: true, NextCursor: "again"}, nil
}

func testInput() Input {
	return Input{Ticket: engine.Ticket{ID: 42, CompanyID: 1, Status: engine.StatusOpen,
		Contact: &engine.Contact{Name: "João Conceição"}}, UserName: func(engine.ID) string { return "Ana" }}
}

func TestRenderStopsOnARepeatingCursor(t *testing.T) {
	err := Render(context.Background(), io.Discard, testInput(), looping{})
	if err == nil || !strings.Contains(err.Error(), "repeats") {
		t.Fatalf("err %v", err)
	}
}

func TestRenderPDF(t *testing.T) {
	var b bytes.Buffer
	if err := Render(context.Background(), &b, testInput(), synthetic{n: 45}); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("%PDF-")) || !bytes.Contains(b.Bytes(), []byte("%%EOF")) {
		t.Fatalf("not a PDF: %.40q", b.Bytes())
	}
}

// BenchmarkRender10000 renders a 10,000-message ticket (500 read-model pages) and
// reports, besides the time per report, the PDF's size and the peak of live heap
// objects, sampled every 2 ms while the reports render.
func BenchmarkRender10000(b *testing.B) {
	src := synthetic{n: 10_000}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				metrics.Read(sample)
				if v := sample[0].Value.Uint64(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	runtime.GC()
	var size int
	for b.Loop() {
		cw := &countingWriter{}
		if err := Render(context.Background(), cw, testInput(), src); err != nil {
			b.Fatal(err)
		}
		size = cw.n
	}
	close(stop)
	<-done
	b.ReportMetric(float64(size)/(1<<20), "MB-pdf")
	b.ReportMetric(float64(peak.Load())/(1<<20), "MB-peak-heap")
}

type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
