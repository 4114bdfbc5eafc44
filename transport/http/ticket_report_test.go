package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"atende/engine"
)

// pdfText extracts the text of a PDF with poppler's pdftotext (Debian's
// poppler-utils, installed by scripts/test-services.sh).
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Fatal("pdftotext not found: install poppler-utils (scripts/test-services.sh poppler)")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "report.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-enc", "UTF-8", in, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v: %s", err, out)
	}
	return string(out)
}

// download fetches a signed media URL from the media store's own handler, as a
// browser would from the public files path.
func (e *ticketEnv) download(t *testing.T, u string) (*http.Response, []byte) {
	t.Helper()
	w := httptest.NewRecorder()
	e.media.Store.ServeHTTP(w, httptest.NewRequest("GET", u, nil))
	res := w.Result()
	return res, w.Body.Bytes()
}

func TestTicketReport(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		e.w.mu.Lock()
		e.w.pageSize = engine.MessagePageSize
		e.w.mu.Unlock()
		report := func(tok string, ticket engine.ID) resp {
			return e.get(tok, fmt.Sprintf("/tickets-export-report?ticketId=%d", ticket))
		}

		t.Run("permission and tenant isolation", func(t *testing.T) {
			ana := e.tok("ana") // profile user, queue 11
			// Bruno's open ticket in queue 12 is not ana's to see.
			report(ana, tOpenBrun).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			// Another tenant's ticket, an unknown one and bad ids are not found.
			report(ana, tOther).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
			report(e.tok("admin2"), tOpenAna).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
			report(ana, 99999).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
			for _, q := range []string{"", "?ticketId=", "?ticketId=abc", "?ticketId=-1", "?ticketId=1e3", "?ticketId=0x66"} {
				e.get(ana, "/tickets-export-report"+q).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
			}
			e.get("", fmt.Sprintf("/tickets-export-report?ticketId=%d", tOpenAna)).wantStatus(t, http.StatusUnauthorized)
			// What ana may see: her own ticket, her queue's pending one, one without a
			// queue and a closed one; a supervisor sees bruno's.
			for _, id := range []engine.ID{tOpenAna, tPending, tNoQueue, tClosed} {
				report(ana, id).wantStatus(t, http.StatusOK)
			}
			report(e.tok("superv"), tOpenBrun).wantStatus(t, http.StatusOK)
			report(e.tok("bruno"), tOpenBrun).wantStatus(t, http.StatusOK)
		})

		t.Run("content", func(t *testing.T) {
			// A stored image of the tenant, for the thumbnail.
			img := image.NewRGBA(image.Rect(0, 0, 24, 16))
			for x := 0; x < 24; x++ {
				for y := 0; y < 16; y++ {
					img.Set(x, y, color.RGBA{R: uint8(x * 10), G: 90, B: 200, A: 255})
				}
			}
			var pngBytes bytes.Buffer
			if err := png.Encode(&pngBytes, img); err != nil {
				t.Fatal(err)
			}
			stored, err := e.media.Save(context.Background(), co1, &pngBytes, "foto.png", "image/png")
			if err != nil {
				t.Fatal(err)
			}
			at := time.Date(2026, 11, 22, 15, 4, 5, 0, time.UTC) // 11:04:05 in Cuiabá (UTC-4)
			var msgs []engine.Message
			add := func(m engine.Message) {
				m.ID, m.CompanyID, m.TicketID = engine.ID(7000+len(msgs)), co1, tOpenAna
				m.CreatedAt = at.Add(time.Duration(len(msgs)) * time.Minute)
				msgs = append(msgs, m)
			}
			add(engine.Message{Body: "Olá! Gostaria de saber o preço do pão de queijo, por favor."})
			add(engine.Message{Body: "Bom dia 😀👍🏽 tudo certo", FromMe: true, SenderID: e.ids["ana"]})
			add(engine.Message{Body: "Segue a foto", MediaType: engine.MediaImage, MediaURL: stored.Path})
			add(engine.Message{Body: "Só para a equipe: cliente antigo", FromMe: true, SenderID: e.ids["ana"], MediaType: engine.MediaWhisper})
			// Enough messages for several pages, so the report pages through the read
			// model and puts them back in order.
			for i := 0; i < 3*engine.MessagePageSize; i++ {
				add(engine.Message{Body: fmt.Sprintf("mensagem número %03d", i), FromMe: i%2 == 0, SenderID: e.ids["ana"]})
			}
			add(engine.Message{Body: `hostil ) Tj ET BT (x) \ <</Type /Page>> %%EOF`})
			add(engine.Message{Body: "Obrigado, atenção excelente — até amanhã!"})
			// The ticket's lifecycle in the journal, for the history section.
			var data []engine.EventData
			for _, ev := range []engine.TicketEvent{
				engine.TicketOpened{TicketID: tOpenAna, UUID: "u", CompanyID: co1, ContactID: 602, ConnectionID: 1, Channel: "whatsapp", QueueID: 11, Status: "pending", At: at.Add(-time.Hour)},
				engine.TicketAccepted{UserID: e.ids["ana"], QueueID: 11, At: at.Add(-30 * time.Minute)},
			} {
				typ, b, err := engine.EncodeTicketEvent(ev)
				if err != nil {
					t.Fatal(err)
				}
				data = append(data, engine.EventData{Type: typ, Data: b})
			}
			if _, err := e.journal.Append(context.Background(), co1, fmt.Sprintf("ticket/%d", tOpenAna), engine.AnyVersion, data...); err != nil {
				t.Fatal(err)
			}
			e.w.mu.Lock()
			e.w.msgs[tOpenAna] = msgs
			e.w.mu.Unlock()

			r := report(e.tok("ana"), tOpenAna)
			r.wantStatus(t, http.StatusOK)
			var v struct {
				URL  string `json:"url"`
				Name string `json:"name"`
			}
			r.json(t, &v)
			if v.Name != fmt.Sprintf("ticket-%d.pdf", tOpenAna) || !strings.HasPrefix(v.URL, "/media/") {
				t.Fatalf("answer %s", r.Body)
			}
			res, pdf := e.download(t, v.URL)
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
				t.Fatalf("download: %d %q %.20q", res.StatusCode, res.Header.Get("Content-Type"), pdf)
			}
			if !bytes.Contains(pdf, []byte("/Subtype /Image")) {
				t.Error("no image (thumbnail) in the PDF")
			}
			// Words as pdftotext reads them, whatever the line breaks (a long link wraps
			// where its signature's length puts it).
			text := strings.Join(strings.Fields(pdfText(t, pdf)), " ")
			for _, want := range []string{
				"Relatório do atendimento",
				"Cliente 602",         // the contact
				"queue 11",            // the queue
				"Ana User",            // the attendant
				"22/11/2026 11:04:05", // the first message, in the tenant's time zone
				"Olá! Gostaria de saber o preço do pão de queijo, por favor.",
				"Bom dia [emoji] tudo certo",
				"Segue a foto",
				"Anexo (image): /media/", // the signed link of the image
				"/" + stored.Path,        // …to the stored file
				"Nota interna por Ana User",
				"Só para a equipe: cliente antigo",
				"Obrigado, atenção excelente — até amanhã!",
				"Histórico",
				`hostil ) Tj ET BT (x) \ <</Type /Page>> %%EOF`, // PDF syntax in a message stays text
				"22/11/2026 10:04:05 Criado",
				"22/11/2026 10:34:05 Aceito Ana User",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("PDF text lacks %q:\n%s", want, text)
				}
			}
			if strings.Contains(text, "😀") || strings.Contains(text, "🏽") {
				t.Error("emoji left in the PDF text")
			}
			// Every message once, oldest first.
			last := -1
			for i := 0; i < 3*engine.MessagePageSize; i++ {
				s := fmt.Sprintf("mensagem número %03d", i)
				if strings.Count(text, s) != 1 {
					t.Fatalf("%q appears %d times", s, strings.Count(text, s))
				}
				pos := strings.Index(text, s)
				if pos < last {
					t.Fatalf("%q out of order", s)
				}
				last = pos
			}
			if strings.Index(text, "Olá! Gostaria") > strings.Index(text, "mensagem número 000") ||
				strings.Index(text, "Obrigado, atenção") < last {
				t.Error("pages out of order")
			}
		})
	})
}
