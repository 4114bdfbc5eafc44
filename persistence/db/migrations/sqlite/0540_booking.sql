-- The booking scheduler (persistence/store/booking.go, engine/booking.go): a tenant's
-- places, its users' positions at them, and the half-hour slots in which a position
-- is available. slot_at is the slot's start in UTC. slots_position_at makes a time
-- one slot per position; a slot is booked by UPDATE … WHERE booking_id IS NULL, so
-- two bookings of one slot cannot both succeed, whichever node they run on.
CREATE TABLE places (
    id         INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    lat        REAL NOT NULL,
    lng        REAL NOT NULL,
    created_at TEXT NOT NULL
);

CREATE INDEX places_company ON places (company_id, id);

-- A place with positions cannot be deleted (no cascade): the store answers
-- ERR_PLACE_IN_USE.
CREATE TABLE positions (
    id         INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    place_id   INTEGER NOT NULL REFERENCES places (id),
    name       TEXT NOT NULL,
    color      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE INDEX positions_user ON positions (company_id, user_id, id);
CREATE INDEX positions_place ON positions (place_id);

-- booking_id is the agenda's booking that holds the slot (NULL: free). It has no
-- foreign key: bookings live in the agenda's tables.
CREATE TABLE slots (
    id          INTEGER PRIMARY KEY,
    company_id  INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    position_id INTEGER NOT NULL REFERENCES positions (id) ON DELETE CASCADE,
    slot_at     TEXT NOT NULL,
    booking_id  INTEGER,
    created_at  TEXT NOT NULL
);

CREATE UNIQUE INDEX slots_position_at ON slots (position_id, slot_at);
