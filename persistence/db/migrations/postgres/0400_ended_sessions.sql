-- Ended sessions (persistence/store/endedsession.go): a login (its refresh-token
-- family id) that was logged out, or whose refresh token was reused, with the time
-- until which access tokens issued to it may still be presented. Every node refuses
-- those tokens until expires_at, also after a restart; rows past it are pruned.
CREATE TABLE ended_sessions (
    session_id TEXT PRIMARY KEY,
    user_id    BIGINT NOT NULL,
    ended_at   TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX ended_sessions_expires ON ended_sessions (expires_at);
