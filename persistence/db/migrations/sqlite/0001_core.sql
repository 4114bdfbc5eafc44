-- Tenants and id allocation shared by every component.
CREATE TABLE companies (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- id_blocks hands out ranges of ids per sequence name so that actors on any node can
-- number new rows (tickets, messages) without a round trip per id.
CREATE TABLE id_blocks (
    name TEXT PRIMARY KEY,
    next INTEGER NOT NULL
);
