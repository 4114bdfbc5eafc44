-- Refresh tokens (persistence/store/refreshtoken.go), stored as hex sha256 only.
-- A family is every token rotated from one login; parent_id links a token to the one
-- it replaced. used_at is set on rotation; presenting a used token revokes the family.
CREATE TABLE refresh_tokens (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    family_id  TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    parent_id  INTEGER,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    used_at    TEXT,
    created_at TEXT NOT NULL
);

CREATE UNIQUE INDEX refresh_tokens_hash ON refresh_tokens (token_hash);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);
CREATE INDEX refresh_tokens_expires ON refresh_tokens (expires_at);
