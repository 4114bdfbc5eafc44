-- Kanban columns and bookings of a tenant (persistence/store/booking.go; issue 11
-- item 4: the /Kanban board and the /advscheduler calendar).
--
-- kanban_columns: the tenant's board, ordered by position (1..12). kind is 'open' for
-- an ordinary column, 'won' for the conclude column ('✅ Fechou') and 'lost' for the
-- cancel column ('❌ Desqualificado'); short marks the columns the 'short' board shows.
-- The store inserts the default set the first time a tenant's board is read, with ON
-- CONFLICT DO NOTHING on (company_id, position), so two nodes doing it at once leave
-- one set.
CREATE TABLE kanban_columns (
    id          BIGSERIAL PRIMARY KEY,
    company_id  BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL DEFAULT 'open' CHECK (kind IN ('open', 'won', 'lost')),
    short       BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (company_id, position),
    -- the (company_id, id) key lets bookings reference a column of their own tenant only
    UNIQUE (company_id, id)
);

-- bookings: one appointment, shown on the calendar between starts_at and ends_at
-- (UTC) and as a card in column_id. A move is one conditional UPDATE on column_id, so
-- a stale move changes nothing. Moving into a won or lost column sets label and
-- archived; archived cards leave the board.
CREATE TABLE bookings (
    id                BIGSERIAL PRIMARY KEY,
    company_id        BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    column_id         BIGINT NOT NULL,
    user_id           BIGINT REFERENCES users (id) ON DELETE SET NULL,
    contact_id        BIGINT REFERENCES contacts (id) ON DELETE SET NULL,
    booking_name      TEXT NOT NULL DEFAULT '',
    booking_type_name TEXT NOT NULL DEFAULT '',
    booking_type_info TEXT NOT NULL DEFAULT '',
    description       TEXT NOT NULL,
    tag_json          TEXT NOT NULL DEFAULT '1',
    position_name     TEXT NOT NULL DEFAULT '',
    position_color    TEXT NOT NULL DEFAULT '',
    contact_cpf       TEXT NOT NULL DEFAULT '',
    contact_dob       TEXT NOT NULL DEFAULT '',
    distance          TEXT NOT NULL DEFAULT '',
    status            INTEGER NOT NULL DEFAULT 0,
    label             TEXT NOT NULL DEFAULT '',
    archived          BOOLEAN NOT NULL DEFAULT FALSE,
    starts_at         TIMESTAMPTZ NOT NULL,
    ends_at           TIMESTAMPTZ NOT NULL,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    FOREIGN KEY (company_id, column_id) REFERENCES kanban_columns (company_id, id),
    CHECK (ends_at > starts_at)
);

CREATE INDEX bookings_company_column ON bookings (company_id, column_id) WHERE NOT archived;
CREATE INDEX bookings_company_starts ON bookings (company_id, starts_at);
