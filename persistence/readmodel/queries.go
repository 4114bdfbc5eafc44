package readmodel

import (
	_ "time/tzdata" // the date filter's zone must load on hosts without zoneinfo

	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
)

// Config tunes Queries.
type Config struct {
	// Logger receives slow-path notes. The zero value logs nothing.
	Logger zerolog.Logger
	// Location is the zone of the date filter and the d: search: a date means the
	// tickets created between its midnights there. Nil: engine.QueueTimeZone
	// (America/Cuiaba).
	Location *time.Location
}

// Queries implements engine.TicketQueries over the read models. Safe for concurrent
// use.
type Queries struct {
	// static after construction
	db  *db.DB
	log zerolog.Logger
	loc *time.Location
	// wordMode forces a word-search plan (tests); zero chooses by the statistics.
	wordMode wordMode
}

type wordMode int

const (
	wordModeAuto wordMode = iota
	wordModeWalk
	wordModeDriven
)

var _ engine.TicketQueries = (*Queries)(nil)

// NewQueries returns the queries over d.
func NewQueries(d *db.DB, cfg Config) (*Queries, error) {
	if d == nil {
		return nil, errors.New("readmodel: nil database")
	}
	loc := cfg.Location
	if loc == nil {
		var err error
		if loc, err = time.LoadLocation(engine.QueueTimeZone); err != nil {
			return nil, fmt.Errorf("readmodel: load zone %s: %w", engine.QueueTimeZone, err)
		}
	}
	return &Queries{db: d, log: cfg.Logger, loc: loc}, nil
}

func errNoTicket(companyID, id engine.ID) error {
	return engine.Wrap(engine.ErrNoTicketFound, fmt.Errorf("ticket %d not in company %d", id, companyID))
}

func errPrincipal(p engine.Principal) error {
	return engine.Wrap(engine.ErrNoPermission, fmt.Errorf("invalid principal (user %d, company %d, profile %q)", p.UserID, p.CompanyID, p.Profile))
}
