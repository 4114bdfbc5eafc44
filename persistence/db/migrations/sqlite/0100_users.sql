-- Staff of every tenant (persistence/store/user.go).
-- E-mails are unique across tenants, not per tenant: login names no tenant, so an
-- e-mail must identify one user. They are stored lower-cased (engine.ValidateUser).
-- AUTOINCREMENT: a deleted user's id is never given to a new user, so a token of the
-- deleted user can never match the new one's row.
-- name_key is the folded name (lower case, no accents) the list is ordered by;
-- search is folded name + U+001F + e-mail, matched with LIKE.
-- whatsapp_id is the user's default connection (NULL for none); it has no foreign key
-- because connections live in a later migration owned by the channel layer.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id    INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    name_key      TEXT NOT NULL,
    search        TEXT NOT NULL,
    email         TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    profile       TEXT NOT NULL,
    whatsapp_id   INTEGER,
    token_version INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE UNIQUE INDEX users_email ON users (email);
CREATE INDEX users_company_name ON users (company_id, name_key, id);
