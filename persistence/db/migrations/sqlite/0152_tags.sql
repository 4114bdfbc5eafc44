-- Tags of a tenant (persistence/store/tag.go). name_key is the name folded (lower
-- case, accents removed, spaces collapsed): 'Urgente', 'URGENTE' and 'urgente' are one
-- tag, which is what lets POST /tags answer the existing tag for a typed name.
-- Ticket links to tags belong to the ticket read model.
CREATE TABLE tags (
    id         INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL,
    color      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE UNIQUE INDEX tags_company_name_key ON tags (company_id, name_key);
