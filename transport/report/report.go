// Package report renders the PDF report of a ticket (GET /tickets-export-report): a
// header with the ticket, contact, queue and attendants, the ticket's history, then
// the whole conversation oldest first, with thumbnails of stored images and links to
// every other media file.
//
// The conversation is never held whole: Render pages through the read model
// (engine.TicketQueries.ListMessages, MessagePageSize messages a page) twice — once
// newest to oldest keeping only the page cursors, then oldest to newest drawing each
// page and dropping it. The PDF itself is built by github.com/go-pdf/fpdf, which keeps
// the compressed page streams until Output writes them to the caller's writer (a
// file, see the HTTP handler).
//
// Text is set in the Go fonts (golang.org/x/image/font/gofont, BSD licence) embedded
// as Unicode TrueType fonts, so pt-BR accents render; a rune the font has no glyph for
// (emoji, other scripts) is replaced by a placeholder instead of a blank box. Times
// are written in the location the caller gives (the tenant's time zone).
package report

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"atende/engine"
)

// Pager is the part of engine.TicketQueries the report reads the conversation from.
type Pager interface {
	ListMessages(ctx context.Context, companyID, ticketID engine.ID, q engine.MessageQuery) (engine.MessagePage, error)
}

// MaxPages bounds the pages of messages one report reads (a read model whose cursor
// never ends would otherwise loop forever): 5000 pages of MessagePageSize messages.
const MaxPages = 5000

// Input is what a report shows besides the conversation.
type Input struct {
	Ticket  engine.Ticket
	History []engine.HistoryEntry
	// UserName names the attendant who sent a message (Message.SenderID); "" when
	// unknown.
	UserName func(engine.ID) string
	// Thumbnail returns a small JPEG of a stored image message (its MediaURL as
	// stored, "<companyId>/<file>"), or ok false when there is none to show. Nil: no
	// thumbnails.
	Thumbnail func(ctx context.Context, path string) (jpeg []byte, ok bool)
	// Link is the address written for a message's media (e.g. a signed URL); nil or
	// "" writes the stored path.
	Link func(path string) string
	// Location is the time zone of every time written; nil is UTC.
	Location *time.Location
	// Now is when the report was made (its footer).
	Now time.Time
}

// Labels of the document. The report is written in pt-BR, the product's language.
var labels = struct {
	title, ticket, protocol, status, contact, number, queue, attendant, connection, created,
	history, conversation, generated, page, noMessages, deleted, whisper, customer, media, by string
}{
	title: "Relatório do atendimento", ticket: "Ticket", protocol: "Protocolo", status: "Status",
	contact: "Contato", number: "Número", queue: "Fila", attendant: "Atendentes", connection: "Conexão",
	created: "Aberto em", history: "Histórico", conversation: "Conversa", generated: "Gerado em",
	page: "Página", noMessages: "Nenhuma mensagem.", deleted: "(apagada)", whisper: "Nota interna",
	customer: "Cliente", media: "Anexo", by: "por",
}

var statusLabels = map[string]string{
	engine.StatusOpen: "Em atendimento", engine.StatusPending: "Aguardando", engine.StatusClosed: "Resolvido",
}

var historyLabels = map[string]string{
	engine.HistoryCreate: "Criado", engine.HistoryAccept: "Aceito", engine.HistoryTransfer: "Transferido", engine.HistoryResolve: "Resolvido",
	engine.HistoryReturn: "Devolvido à fila", engine.HistoryReopen: "Reaberto", engine.HistoryDelete: "Apagado",
}

const (
	fontFamily = "go"
	timeLayout = "02/01/2006 15:04:05"
	pageMargin = 15.0
	thumbWidth = 40.0 // mm
	bodySize   = 9.5
	lineHeight = 4.6
)

// Render writes the PDF report of in.Ticket to w, reading its messages from src.
func Render(ctx context.Context, w io.Writer, in Input, src Pager) error {
	if in.Location == nil {
		in.Location = time.UTC
	}
	if in.UserName == nil {
		in.UserName = func(engine.ID) string { return "" }
	}
	cursors, err := pageCursors(ctx, in.Ticket, src)
	if err != nil {
		return err
	}
	d := newDoc(in)
	d.header()
	d.history()
	d.section(labels.conversation)
	empty := true
	// cursors[i] fetches page i (0: the newest); draw from the oldest page down.
	for i := len(cursors) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		page, err := src.ListMessages(ctx, in.Ticket.CompanyID, in.Ticket.ID, pageQuery(cursors[i]))
		if err != nil {
			return fmt.Errorf("report of ticket %d: messages: %w", in.Ticket.ID, err)
		}
		for j := range page.Messages {
			d.message(ctx, &page.Messages[j])
			empty = false
		}
		if d.pdf.Err() {
			return fmt.Errorf("report of ticket %d: %w", in.Ticket.ID, d.pdf.Error())
		}
	}
	if empty {
		d.text(labels.noMessages)
	}
	if err := d.pdf.Output(w); err != nil {
		return fmt.Errorf("report of ticket %d: write: %w", in.Ticket.ID, err)
	}
	return nil
}

// pageQuery is the query of the page a cursor names ("" is the newest page).
func pageQuery(cursor string) engine.MessageQuery {
	if cursor == "" {
		return engine.MessageQuery{PageNumber: 1}
	}
	return engine.MessageQuery{Cursor: cursor}
}

// pageCursors walks the conversation newest to oldest and keeps the cursor of each
// page, "" for the first. A cursor met twice (a read model that does not advance)
// or more than MaxPages pages end the walk with an error rather than a loop.
func pageCursors(ctx context.Context, t engine.Ticket, src Pager) ([]string, error) {
	cursors := []string{""}
	seen := map[string]bool{"": true}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		page, err := src.ListMessages(ctx, t.CompanyID, t.ID, pageQuery(cursors[len(cursors)-1]))
		if err != nil {
			return nil, fmt.Errorf("report of ticket %d: messages: %w", t.ID, err)
		}
		if !page.HasMore || page.NextCursor == "" {
			return cursors, nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("report of ticket %d: message cursor %q repeats", t.ID, page.NextCursor)
		}
		if len(cursors) >= MaxPages {
			return nil, fmt.Errorf("report of ticket %d: more than %d pages of messages", t.ID, MaxPages)
		}
		seen[page.NextCursor] = true
		cursors = append(cursors, page.NextCursor)
	}
}

// doc is one report being drawn.
type doc struct {
	pdf     *fpdf.Fpdf
	in      Input
	cleaner textCleaner
	width   float64 // of the text area
	thumb   int     // images registered so far (their names must be unique)
}

func newDoc(in Input) *doc {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetMargins(pageMargin, pageMargin, pageMargin)
	pdf.SetAutoPageBreak(true, pageMargin)
	pdf.AddUTF8FontFromBytes(fontFamily, "", goregular.TTF)
	pdf.AddUTF8FontFromBytes(fontFamily, "B", gobold.TTF)
	pdf.SetTitle(fmt.Sprintf("%s %d", labels.title, in.Ticket.ID), true)
	pdf.SetCreator("Atende", true)
	pdf.AliasNbPages("{nb}")
	d := &doc{pdf: pdf, in: in, cleaner: newTextCleaner()}
	pageW, _ := pdf.GetPageSize()
	d.width = pageW - 2*pageMargin
	pdf.SetFooterFunc(func() {
		pdf.SetY(-pageMargin + 5)
		pdf.SetFont(fontFamily, "", 7.5)
		pdf.SetTextColor(110, 110, 110)
		pdf.CellFormat(d.width/2, 4, fmt.Sprintf("%s %s", labels.generated, d.when(in.Now)), "", 0, "L", false, 0, "")
		pdf.CellFormat(d.width/2, 4, fmt.Sprintf("%s %d/{nb}", labels.page, pdf.PageNo()), "", 0, "R", false, 0, "")
	})
	pdf.AddPage()
	return d
}

func (d *doc) when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(d.in.Location).Format(timeLayout)
}

// clean makes s drawable in the report's font (see textCleaner).
func (d *doc) clean(s string) string { return d.cleaner.clean(s) }

func (d *doc) header() {
	t, pdf := d.in.Ticket, d.pdf
	pdf.SetFont(fontFamily, "B", 15)
	pdf.SetTextColor(20, 20, 20)
	pdf.MultiCell(d.width, 7, d.clean(fmt.Sprintf("%s — %s #%d", labels.title, labels.ticket, t.ID)), "", "L", false)
	pdf.Ln(2)
	row := func(label, value string) {
		if strings.TrimSpace(value) == "" {
			return
		}
		pdf.SetFont(fontFamily, "B", bodySize)
		pdf.CellFormat(32, lineHeight+0.4, label, "", 0, "L", false, 0, "")
		pdf.SetFont(fontFamily, "", bodySize)
		pdf.MultiCell(d.width-32, lineHeight+0.4, d.clean(value), "", "L", false)
	}
	row(labels.protocol, t.Protocol)
	status := statusLabels[t.Status]
	if status == "" {
		status = t.Status
	}
	row(labels.status, status)
	if c := t.Contact; c != nil {
		row(labels.contact, c.Name)
		row(labels.number, c.Number)
	}
	if t.Queue != nil {
		row(labels.queue, t.Queue.Name)
	}
	if t.Whatsapp != nil {
		row(labels.connection, t.Whatsapp.Name)
	}
	row(labels.attendant, strings.Join(d.attendants(), ", "))
	row(labels.created, d.when(t.CreatedAt))
	pdf.Ln(2)
}

// attendants are the users who held the ticket: its current user and every user the
// history names, in order of first appearance.
func (d *doc) attendants() []string {
	var out []string
	seen := map[string]bool{}
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, h := range d.in.History {
		add(h.OldUserName)
		add(h.NewUserName)
	}
	if u := d.in.Ticket.User; u != nil {
		add(u.Name)
	}
	return out
}

func (d *doc) section(title string) {
	pdf := d.pdf
	pdf.Ln(1)
	pdf.SetFont(fontFamily, "B", 11.5)
	pdf.SetTextColor(20, 20, 20)
	pdf.CellFormat(d.width, 7, title, "B", 1, "L", false, 0, "")
	pdf.Ln(1.5)
}

func (d *doc) text(s string) {
	d.pdf.SetFont(fontFamily, "", bodySize)
	d.pdf.SetTextColor(40, 40, 40)
	d.pdf.MultiCell(d.width, lineHeight, d.clean(s), "", "L", false)
}

func (d *doc) history() {
	if len(d.in.History) == 0 {
		return
	}
	d.section(labels.history)
	for _, h := range d.in.History {
		action := historyLabels[h.Action]
		if action == "" {
			action = h.Action
		}
		line := d.when(h.CreatedAt) + "  " + action
		if h.OldUserName != "" || h.NewUserName != "" {
			line += "  " + arrow(h.OldUserName, h.NewUserName)
		}
		if h.OldQueueName != "" || h.NewQueueName != "" {
			line += "  [" + labels.queue + ": " + arrow(h.OldQueueName, h.NewQueueName) + "]"
		}
		d.text(line)
	}
}

func arrow(from, to string) string {
	switch {
	case from == "" || from == to:
		return to
	case to == "":
		return from
	}
	return from + " → " + to
}

// message draws one message: a bold line with its time and author, its body, then
// its media (a thumbnail for a stored image, a link for anything else).
func (d *doc) message(ctx context.Context, m *engine.Message) {
	pdf := d.pdf
	author := labels.customer
	if c := d.in.Ticket.Contact; c != nil && c.Name != "" {
		author = c.Name
	}
	if m.FromMe {
		author = d.in.UserName(m.SenderID)
		if author == "" {
			author = labels.attendant
		}
	}
	if m.MediaType == engine.MediaWhisper {
		author = labels.whisper + " " + labels.by + " " + author
	}
	head := d.when(m.CreatedAt) + "  " + author
	if m.IsDeleted {
		head += "  " + labels.deleted
	}
	pdf.SetFont(fontFamily, "B", bodySize)
	if m.FromMe {
		pdf.SetTextColor(0, 90, 160)
	} else {
		pdf.SetTextColor(30, 120, 60)
	}
	pdf.MultiCell(d.width, lineHeight, d.clean(head), "", "L", false)
	if body := strings.TrimSpace(m.Body); body != "" {
		d.text(body)
	}
	if m.MediaURL != "" && m.MediaType != engine.MediaWhisper {
		d.media(ctx, m)
	}
	pdf.Ln(1.8)
}

func (d *doc) media(ctx context.Context, m *engine.Message) {
	pdf := d.pdf
	if m.MediaType == engine.MediaImage && d.in.Thumbnail != nil {
		if img, ok := d.in.Thumbnail(ctx, m.MediaURL); ok {
			d.thumb++
			name := fmt.Sprintf("thumb%d", d.thumb)
			info := pdf.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "JPG"}, strings.NewReader(string(img)))
			if pdf.Err() {
				// A thumbnail fpdf cannot read is left out; the link below still is there.
				pdf.ClearError()
			} else if info != nil && info.Width() > 0 {
				h := thumbWidth * info.Height() / info.Width()
				_, pageH := pdf.GetPageSize()
				if pdf.GetY()+h > pageH-pageMargin {
					pdf.AddPage()
				}
				pdf.ImageOptions(name, pageMargin, pdf.GetY()+0.5, thumbWidth, h, true, fpdf.ImageOptions{ImageType: "JPG"}, 0, "")
			}
		}
	}
	link := m.MediaURL
	if d.in.Link != nil {
		if l := d.in.Link(m.MediaURL); l != "" {
			link = l
		}
	}
	pdf.SetFont(fontFamily, "", 8)
	pdf.SetTextColor(0, 70, 200)
	pdf.WriteLinkString(lineHeight, d.clean(labels.media+" ("+m.MediaType+"): "+link), link)
	pdf.Ln(lineHeight)
}
