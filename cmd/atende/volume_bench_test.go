package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/importwhaticket"
)

// BenchmarkFootprintAtVolume is B10 of BENCHMARKS.md: the footprint of a shop of
// ATENDE_B10_MESSAGES messages (default 1,000,000: 100,000 contacts and 100,000
// tickets) loaded through the product, beside whaticket's for the same shop.
//
//   - whaticket-db-MB: the shop synthesized into whaticket's own schema on
//     PostgreSQL (importwhaticket.Synthesize), tables with their indexes.
//   - load-s, db-MB: `atende seed --volume` into an empty PostgreSQL that commits
//     durably — the same shop synthesized again (into SQLite), imported as journal
//     events and read models through the importer, the read models built — and the
//     size of every table of the database it leaves (journal, read models, the
//     import's map, the demo tenant), as loaded: no VACUUM FULL.
//   - rss-MiB-idle: the server started on that database, 10 s after it is ready.
//   - rss-MiB-busy: the same after an admin of the shop paged through its open,
//     pending and closed lists (50 pages each), read the messages of 2,000 tickets
//     and searched 20 words, and ATENDE_B10_VISITORS (default 10,000) new customers
//     wrote a message each to the demo tenant's web chat (a contact, a ticket, a
//     greeting each), 10 s after the last answer.
//
// The largest tables of both databases are logged (-v). ATENDE_B10_HEAP=file saves
// the server's heap profile at the end.
//
// The shop is loaded once and measured twice, in order: "footprint" (the figures
// above) and then, on the same server and database, "side-by-side" (sideBySide: the
// workload shapes whaticket-community's figures were published for). Loading it
// again for a benchmark of its own would cost minutes; running the second after the
// RSS readings leaves them undisturbed. -bench 'FootprintAtVolume/side' loads the
// shop and runs the second only.
func BenchmarkFootprintAtVolume(b *testing.B) {
	n := envInt("ATENDE_B10_MESSAGES", 1_000_000)
	v := importwhaticket.VolumeOf(n)
	ctx := context.Background()

	wtURL := dbtest.URL(b, db.Postgres)
	if err := importwhaticket.Synthesize(ctx, wtURL, v, nil); err != nil {
		b.Fatal(err)
	}
	wtSize, wtTables := tableSizes(b, wtURL)

	dbURL := dbtest.DurableURL(b, db.Postgres)
	start := time.Now()
	seed := exec.Command(clusterBinary(b), "seed", "--volume", fmt.Sprint(n))
	seed.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "DATA_DIR="+b.TempDir(), "LOG_LEVEL=error")
	if out, err := seed.CombinedOutput(); err != nil {
		b.Fatalf("atende seed --volume: %v\n%s", err, out)
	}
	load := time.Since(start)
	size, tables := tableSizes(b, dbURL)
	b.Logf("whaticket: %s", wtTables)
	b.Logf("Atende: %s", tables)

	private := freeAddr(b)
	p := startProcess(b, []string{"DATABASE_URL=" + dbURL, "METRICS_ADDR=" + private, "DATA_DIR=" + b.TempDir(),
		"JWT_SECRET=" + strings.Repeat("e2e-secret-", 4), "LOG_LEVEL=error",
		// Every visitor comes from 127.0.0.1: lift the web chat's per-address bounds.
		"WEBCHAT_NEW_VISITORS_PER_MINUTE=0", "WEBCHAT_MAX_CONNECTIONS_PER_ADDRESS=0", "WEBCHAT_HANDSHAKES_PER_MINUTE=0",
		"WEBCHAT_HANDSHAKES_PER_SECOND=0", "WEBCHAT_NEW_VISITORS_PER_CONNECTION=0",
		// The same for the side-by-side phase's attendant sockets.
		"SOCKET_MAX_CONNECTIONS_PER_ADDRESS=0", "SOCKET_HANDSHAKES_PER_MINUTE=0", "SOCKET_HANDSHAKES_PER_SECOND=0"}, freeAddr(b))
	b.Run("footprint", func(b *testing.B) {
		footprint(b, p, private, dbURL, v)
		b.ReportMetric(load.Seconds(), "load-s")
		b.ReportMetric(float64(size)/1e6, "db-MB")
		b.ReportMetric(float64(wtSize)/1e6, "whaticket-db-MB")
		b.ReportMetric(float64(size)/float64(wtSize), "db-ratio")
	})
	b.Run("side-by-side", func(b *testing.B) { sideBySide(b, p.base) })
}

// footprint is the footprint phase of BenchmarkFootprintAtVolume: the server's RSS
// idle and after a busy spell, on the shop of volume v it serves.
func footprint(b *testing.B, p *process, private, dbURL string, v importwhaticket.Volume) {
	settle := 10 * time.Second
	time.Sleep(settle)
	idle := processRSS(b, p.cmd.Process.Pid)

	admin := login(b, p.base, importwhaticket.VolumeAdmin, importwhaticket.VolumePassword)
	var tickets []int64
	for _, status := range []string{"open", "pending", "closed"} {
		cursor := ""
		for page := 0; page < 50; page++ {
			var out struct {
				Tickets []struct {
					ID int64 `json:"id"`
				} `json:"tickets"`
				NextCursor string `json:"nextCursor"`
			}
			q := url.Values{"status": {status}, "showAll": {"true"}}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			admin.call("GET", "/tickets?"+q.Encode(), nil, http.StatusOK, &out)
			for _, t := range out.Tickets {
				tickets = append(tickets, t.ID)
			}
			if cursor = out.NextCursor; cursor == "" {
				break
			}
		}
	}
	if len(tickets) < 2000 && len(tickets) < v.Tickets {
		b.Fatalf("the lists gave %d tickets", len(tickets))
	}
	read := 0
	for _, id := range tickets[:min(2000, len(tickets))] {
		var out struct {
			Messages []json.RawMessage `json:"messages"`
		}
		admin.call("GET", fmt.Sprintf("/messages/%d", id), nil, http.StatusOK, &out)
		read += len(out.Messages)
	}
	if read == 0 {
		b.Fatal("no message read")
	}
	for _, word := range []string{"pedido", "frete", "pix", "boleto", "camiseta", "rastreio", "nota", "reembolso", "azul",
		"aplicativo", "horário", "comprovante", "assinatura", "entrega", "tamanho", "cartão", "retorno", "acesso", "ajuda", "cep"} {
		admin.call("GET", "/tickets?"+url.Values{"searchParam": {word}, "showAll": {"true"}}.Encode(), nil, http.StatusOK, nil)
	}
	visitors := envInt("ATENDE_B10_VISITORS", 10000)
	connID := webChatOf(b, dbURL)
	if err := inParallel(16, visitors, func(i int) error {
		c, err := rawCustomer(p.base, connID, fmt.Sprintf("b10-%d-%d", time.Now().UnixNano(), i))
		if err != nil {
			return err
		}
		defer c.Close()
		return c.say("m1", "Olá, quero saber do meu pedido")
	}); err != nil {
		b.Fatalf("a visitor: %v", err)
	}
	time.Sleep(settle)
	busy := processRSS(b, p.cmd.Process.Pid)
	saveHeap(b, private, os.Getenv("ATENDE_B10_HEAP"))
	b.ReportMetric(float64(v.Messages()), "messages")
	b.ReportMetric(float64(idle)/(1<<20), "rss-MiB-idle")
	b.ReportMetric(float64(busy)/(1<<20), "rss-MiB-busy")
	b.ReportMetric(float64(visitors), "visitors")
}

// tableSizes is dbtest.TableSizes of the schema u connects to (dbtest gives each
// test a schema of its own).
func tableSizes(t testing.TB, u string) (total int64, largest string) {
	t.Helper()
	d, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	return dbtest.TableSizes(t, d)
}
