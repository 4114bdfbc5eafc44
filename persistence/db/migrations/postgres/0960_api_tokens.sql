-- Messaging-API tokens of a tenant (persistence/store/apitoken.go). Only the hex
-- SHA-256 of the secret is stored; prefix is its first characters, shown to tell
-- tokens apart. revoked_at is set once the token is revoked; the messaging API
-- refuses it from then on (each call reads this row).
CREATE TABLE api_tokens (
    id           BIGSERIAL PRIMARY KEY,
    company_id   BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id      BIGINT NOT NULL,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ
);

CREATE UNIQUE INDEX api_tokens_hash ON api_tokens (token_hash);
CREATE INDEX api_tokens_company ON api_tokens (company_id, id);

-- Sends of the messaging API made with an Idempotency-Key: the message id the first
-- call was given, so that a retry sends that same message (recorded once) instead of
-- a second one, and the ticket it went to once delivered. Rows older than a day are
-- deleted as new keys come (see ClaimSend).
CREATE TABLE api_sends (
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    idem_key   TEXT NOT NULL,
    message_id BIGINT NOT NULL,
    contact_id BIGINT NOT NULL,
    ticket_id  BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (company_id, idem_key)
);

CREATE INDEX api_sends_created ON api_sends (company_id, created_at);
