package readmodel

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"atende/engine"
	"atende/persistence/db"
)

// wordChunk is how many messages (by seq) share a row of ticket_words (migration
// 0212): adding words to a long conversation rewrites one bounded row.
const wordChunk = 256

// maxChunkWords bounds the distinct words of one ticket_words row; past it the
// chunk's new words are not added (a tsvector holds at most 1 MB).
const maxChunkWords = 20000

// chunkKey names a row of ticket_words.
type chunkKey struct {
	ticket engine.ID
	chunk  int64
}

// wordIndex gathers a batch's changes to PostgreSQL's per-ticket word index. One Apply
// call uses it, from one goroutine.
type wordIndex struct {
	tx *sql.Tx

	added   map[chunkKey]*wordSet // words of the batch's new messages, per chunk
	removed map[engine.ID]deletion
}

type deletion struct {
	company  engine.ID
	messages []engine.ID
}

// wordSet is a chunk's new words, in first-seen order.
type wordSet struct {
	company engine.ID
	seen    map[string]bool
	list    []string
}

func (ws *wordSet) add(words []string) {
	for _, w := range words {
		if !ws.seen[w] {
			ws.seen[w] = true
			ws.list = append(ws.list, w)
		}
	}
}

func newWordIndex(tx *sql.Tx) *wordIndex {
	return &wordIndex{tx: tx, added: map[chunkKey]*wordSet{}, removed: map[engine.ID]deletion{}}
}

// add records the words of message number seq of ticket.
func (x *wordIndex) add(ticket, company engine.ID, seq int64, words []string) {
	if len(words) == 0 {
		return
	}
	k := chunkKey{ticket, seq / wordChunk}
	ws := x.added[k]
	if ws == nil {
		ws = &wordSet{company: company, seen: map[string]bool{}}
		x.added[k] = ws
	}
	ws.add(words)
}

// deleted records that message of ticket was deleted: its chunk is rebuilt.
func (x *wordIndex) deleted(ticket, company, message engine.ID) {
	d := x.removed[ticket]
	d.company = company
	d.messages = append(d.messages, message)
	x.removed[ticket] = d
}

// flush writes the batch's changes: one upsert per chunk adding the new words (a
// chunk that holds them all already is left alone, so its GIN entries are not
// rewritten for nothing), then a rebuild of every chunk that lost a message. Call
// after the messages are written.
func (x *wordIndex) flush(ctx context.Context) error {
	keys := make([]chunkKey, 0, len(x.added))
	for k := range x.added {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b chunkKey) int {
		if a.ticket != b.ticket {
			return int(a.ticket - b.ticket)
		}
		return int(a.chunk - b.chunk)
	})
	rows := make([][]any, len(keys))
	var multi []engine.ID // tickets that reached a second chunk
	for i, k := range keys {
		ws := x.added[k]
		rows[i] = []any{k.ticket, k.chunk, ws.company, k.chunk > 0, strings.Join(ws.list, " ")}
		if k.chunk > 0 && (len(multi) == 0 || multi[len(multi)-1] != k.ticket) {
			multi = append(multi, k.ticket)
		}
	}
	x.added = map[chunkKey]*wordSet{}
	err := db.InsertRows(ctx, x.tx, db.Postgres, "ticket_words", []string{"ticket_id", "chunk", "company_id", "multi", "words"},
		[]string{"", "", "", "", "strip(to_tsvector('simple', %s))"}, rows,
		`ON CONFLICT (ticket_id, chunk) DO UPDATE SET words = strip(ticket_words.words || excluded.words)
		WHERE strip(ticket_words.words || excluded.words) <> ticket_words.words
			AND length(ticket_words.words) < `+strconv.Itoa(maxChunkWords), nil)
	if err != nil {
		return err
	}
	if len(multi) > 0 {
		if _, err := x.tx.ExecContext(ctx, `UPDATE ticket_words SET multi = TRUE WHERE ticket_id = ANY($1) AND NOT multi`,
			multi); err != nil {
			return fmt.Errorf("mark multi-chunk tickets: %w", err)
		}
	}
	tickets := make([]engine.ID, 0, len(x.removed))
	for id := range x.removed {
		tickets = append(tickets, id)
	}
	slices.Sort(tickets)
	for _, id := range tickets {
		if err := x.rebuild(ctx, id, x.removed[id]); err != nil {
			return fmt.Errorf("rebuild words of ticket %d: %w", id, err)
		}
	}
	x.removed = map[engine.ID]deletion{}
	return nil
}

// rebuild recomputes the chunks of ticket that held the deleted messages from their
// messages that are not deleted.
func (x *wordIndex) rebuild(ctx context.Context, ticket engine.ID, d deletion) error {
	var a args
	rs, err := x.tx.QueryContext(ctx, `SELECT DISTINCT seq / `+strconv.Itoa(wordChunk)+` FROM messages
		WHERE ticket_id = `+a.add(ticket)+` AND `+a.inList("id", d.messages), a.list...)
	if err != nil {
		return err
	}
	var chunks []int64
	for rs.Next() {
		var c int64
		if err := rs.Scan(&c); err != nil {
			rs.Close()
			return err
		}
		chunks = append(chunks, c)
	}
	err = rs.Err()
	rs.Close()
	if err != nil {
		return err
	}
	for _, c := range chunks {
		ws := &wordSet{seen: map[string]bool{}}
		rs, err := x.tx.QueryContext(ctx, `SELECT body FROM messages WHERE ticket_id = $1 AND seq >= $2 AND seq < $3
			AND is_deleted = FALSE ORDER BY seq`, ticket, c*wordChunk, (c+1)*wordChunk)
		if err != nil {
			return err
		}
		for rs.Next() {
			var body string
			if err := rs.Scan(&body); err != nil {
				rs.Close()
				return err
			}
			if len(ws.list) < maxChunkWords {
				words := engine.SearchWords(body)
				ws.add(words[:min(len(words), maxIndexedWords)])
			}
		}
		err = rs.Err()
		rs.Close()
		if err != nil {
			return err
		}
		_, err = x.tx.ExecContext(ctx, `INSERT INTO ticket_words (ticket_id, chunk, company_id, multi, words)
			VALUES ($1, $2, $3, $4, strip(to_tsvector('simple', $5)))
			ON CONFLICT (ticket_id, chunk) DO UPDATE SET words = excluded.words`,
			ticket, c, d.company, c > 0, strings.Join(ws.list, " "))
		if err != nil {
			return err
		}
	}
	return nil
}
