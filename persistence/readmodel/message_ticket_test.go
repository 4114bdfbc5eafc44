package readmodel_test

import (
	"context"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// DELETE /messages/{id} names only the message (the web app and whaticket's client
// send no ticket id): the read model finds its ticket within the tenant, and answers
// ERR_NO_MESSAGE_FOUND alike for another tenant's message, a deleted ticket's and an
// unknown id.
func TestMessageTicketFindsTheTicketWithinTheTenant(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		w.company(1)
		w.company(2)
		w.contact(1, 5, "Maria", "5565999990001", "")
		w.contact(2, 6, "João", "5565999990002", "")
		w.open(1, 10, 5, 0, 7, "p10")
		in := w.receive(10, "Olá")
		mine := w.send(10, 7, "Resposta", 0)
		w.open(2, 20, 6, 0, 8, "p20")
		other := w.send(20, 8, "de outra empresa", 0)
		w.open(1, 11, 5, 0, 7, "p11")
		gone := w.send(11, 7, "apagado depois", 0)
		w.do(11, engine.Delete{})

		ctx := context.Background()
		for _, tc := range []struct {
			name             string
			company, message engine.ID
			want             engine.ID
		}{
			{"received message", 1, in, 10},
			{"our own message", 1, mine, 10},
			{"the other tenant's own message", 2, other, 20},
		} {
			got, err := w.q.MessageTicket(ctx, tc.company, tc.message)
			if err != nil || got != tc.want {
				t.Errorf("%s: MessageTicket(%d, %d) = %d, %v; want %d", tc.name, tc.company, tc.message, got, err, tc.want)
			}
		}
		for _, tc := range []struct {
			name             string
			company, message engine.ID
		}{
			{"another tenant's message", 1, other},
			{"a deleted ticket's message", 1, gone},
			{"unknown id", 1, 999999},
			{"zero id", 1, 0},
			{"negative id", 1, -mine},
			{"no company", 0, mine},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := w.q.MessageTicket(ctx, tc.company, tc.message)
				if got != 0 {
					t.Errorf("ticket = %d, want 0", got)
				}
				wantCode(t, err, engine.ErrNoMessageFound)
			})
		}
	})
}
