package journal_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/journal"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "journal-example")
	defer os.RemoveAll(dir)
	d, err := db.Open(ctx, "sqlite:"+filepath.Join(dir, "atende.db"))
	if err != nil {
		panic(err)
	}
	defer d.Close()
	if _, err := d.Migrate(ctx); err != nil {
		panic(err)
	}
	j, err := journal.New(d, journal.Config{})
	if err != nil {
		panic(err)
	}
	defer j.Close()

	// A new stream: expected version 0.
	res, err := j.Append(ctx, 1, "ticket/42", 0,
		engine.EventData{Type: "ticket.opened", Data: []byte(`{"contactId":7}`)},
		engine.EventData{Type: "ticket.accepted", Data: []byte(`{"userId":3}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println("version", res.Version, "positions", res.Positions)

	// A writer that decided on a stale state loses.
	_, err = j.Append(ctx, 1, "ticket/42", 1, engine.EventData{Type: "ticket.resolved", Data: []byte(`{}`)})
	var conflict *engine.ConflictError
	fmt.Println(errors.Is(err, engine.ErrConflict), errors.As(err, &conflict) && conflict.Actual == 2)

	evs, _ := j.ReadStream(ctx, "ticket/42", 1, 0)
	for _, e := range evs {
		fmt.Println(e.Position, e.StreamID, e.Version, e.Type, string(e.Data))
	}
	// Output:
	// version 2 positions [1 2]
	// true true
	// 1 ticket/42 1 ticket.opened {"contactId":7}
	// 2 ticket/42 2 ticket.accepted {"userId":3}
}
