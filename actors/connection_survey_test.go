package actors

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/dashboard"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/projection"
	"atende/persistence/store"
)

// TestSatisfactionSurveyCountsOncePerTicket drives the survey through the real
// connection and ticket actors: the resolve of a ticket in a queue with the nps flag
// sends the farewell and the rating question; the customer's "3" is recorded once,
// thanked once with the queue's encouraging message, and stays counted once when the
// provider delivers it again; a later "2" is an ordinary message of a new ticket. Two
// projection runners (two nodes) then add the answer to the contact exactly once.
func TestSatisfactionSurveyCountsOncePerTicket(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		queues := store.NewQueues(d, nil)
		r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Queues = queues })
		q, err := queues.Create(ctx, 1, engine.QueueInput{Name: "Vendas", Color: "#112233", NPS: true,
			EncouragingMessage: "Obrigado por avaliar!"})
		if err != nil {
			t.Fatal(err)
		}
		_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket,
			FarewellMessage: "Até logo!", QueueIDs: []engine.ID{q.ID}})
		num := "webchat:rita"
		if err := ch.sink.Inbound(ctx, inbound(num, "p1", "Oi")); err != nil {
			t.Fatal(err)
		}
		var tid engine.ID
		for id := range r.ticketStates(t) {
			tid = id
		}
		r.do(t, tid, engine.Accept{UserID: 1})
		r.do(t, tid, engine.Resolve{})
		eventually(t, "farewell and question", func() bool { return len(ch.sentTo(num)) == 2 })
		if sent := ch.sentTo(num); sent[0].Body != "Até logo!" || sent[1].Body != engine.RatingQuestion {
			t.Fatalf("sent %+v", sent)
		}

		for i := 0; i < 3; i++ { // the answer, then the provider delivering it twice more
			if err := ch.sink.Inbound(ctx, inbound(num, "p2", "3")); err != nil {
				t.Fatal(err)
			}
		}
		eventually(t, "encouraging message", func() bool { return len(ch.sentTo(num)) == 3 })
		if got := ch.sentTo(num)[2].Body; got != "Obrigado por avaliar!" {
			t.Fatalf("thanks %q", got)
		}
		// Another message is a new conversation, not a second rating.
		if err := ch.sink.Inbound(ctx, inbound(num, "p3", "2")); err != nil {
			t.Fatal(err)
		}
		ratings := 0
		r.eachTicketEvent(t, func(id engine.ID, ev engine.TicketEvent) {
			if rt, ok := ev.(engine.TicketRated); ok {
				ratings++
				if id != tid || rt.Score != 3 || rt.QueueID != q.ID || rt.UserID != 1 {
					t.Errorf("rating %+v on ticket %d", rt, id)
				}
			}
		})
		states := r.ticketStates(t)
		if ratings != 1 || len(states) != 2 || !states[tid].Rated {
			t.Fatalf("%d ratings, %d tickets, first %+v", ratings, len(states), states[tid])
		}
		// No second thanks for the redeliveries (give the actor time to misbehave).
		time.Sleep(200 * time.Millisecond)
		if n := len(ch.sentTo(num)); n != 3 {
			t.Fatalf("%d messages sent to the customer, want farewell, question, thanks", n)
		}

		// Two nodes apply the journal; the contact gains one answer.
		recs, err := r.journal.ReadAll(ctx, 0, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		last := recs[len(recs)-1].Position
		runners := make([]*projection.Runner, 2)
		for i := range runners {
			run, err := projection.New(d, r.journal, projection.Config{BatchSize: 2 + i, MinBackoff: time.Millisecond,
				MaxBackoff: 20 * time.Millisecond, Logger: zerolog.Nop()}, dashboard.AppraisalProjection{})
			if err != nil {
				t.Fatal(err)
			}
			if err := run.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { run.Close() })
			runners[i] = run
		}
		for _, run := range runners {
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			err := run.WaitFor(wctx, last)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
		}
		c, err := r.contacts.Get(ctx, 1, states[tid].ContactID)
		if err != nil {
			t.Fatal(err)
		}
		if c.AppraisalData == nil || c.AppraisalData.TotalSum != 3 || c.AppraisalData.TotalCount != 1 {
			t.Fatalf("appraisalData %+v, want 3/1", c.AppraisalData)
		}
	})
}

// TestSatisfactionSurveyOwnQuestion: a queue with a question of its own sends it
// instead of the default, and an answer to it is counted.
func TestSatisfactionSurveyOwnQuestion(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		queues := store.NewQueues(d, nil)
		r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Queues = queues })
		q, err := queues.Create(ctx, 1, engine.QueueInput{Name: "Support", Color: "#112233", NPS: true,
			RatingQuestion: engine.RatingQuestions["en"]})
		if err != nil {
			t.Fatal(err)
		}
		if q.RatingQuestion != engine.RatingQuestions["en"] {
			t.Fatalf("stored question %q", q.RatingQuestion)
		}
		_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket,
			FarewellMessage: "Bye!", QueueIDs: []engine.ID{q.ID}})
		num := "webchat:sam"
		if err := ch.sink.Inbound(ctx, inbound(num, "p1", "Hi")); err != nil {
			t.Fatal(err)
		}
		var tid engine.ID
		for id := range r.ticketStates(t) {
			tid = id
		}
		r.do(t, tid, engine.Accept{UserID: 1})
		r.do(t, tid, engine.Resolve{})
		eventually(t, "farewell and question", func() bool { return len(ch.sentTo(num)) == 2 })
		if sent := ch.sentTo(num); sent[1].Body != engine.RatingQuestions["en"] {
			t.Fatalf("question %q, want the queue's own", sent[1].Body)
		}
		if err := ch.sink.Inbound(ctx, inbound(num, "p2", "2")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "rated", func() bool { return r.ticketStates(t)[tid].Rated })
	})
}
