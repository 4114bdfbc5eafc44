-- Provider credentials of cloud channel connections (persistence/credentials): WABA,
-- Facebook, Instagram, Telegram. One row per connection; (provider, external_id) routes
-- a provider's web-hook to its connection. Secrets never leave the server through the
-- API. Times are Unix microseconds (UTC).
CREATE TABLE channel_credentials (
    connection_id INTEGER NOT NULL PRIMARY KEY REFERENCES connections (id) ON DELETE CASCADE,
    company_id    INTEGER NOT NULL,
    provider      TEXT NOT NULL,
    external_id   TEXT NOT NULL,
    account_id    TEXT NOT NULL DEFAULT '',
    token         TEXT NOT NULL DEFAULT '',
    secret        TEXT NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX channel_credentials_external ON channel_credentials (provider, external_id);
