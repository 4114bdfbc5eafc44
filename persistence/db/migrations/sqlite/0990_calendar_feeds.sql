-- Calendar subscription links (persistence/store/calendarfeed.go): one per user. The
-- link's secret is never stored, only its SHA-256 (token_hash), so a database read
-- does not reveal a working link; generating a new link replaces the row, which
-- revokes the old one at once.
CREATE TABLE calendar_feeds (
    company_id INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (company_id, user_id)
);

CREATE UNIQUE INDEX calendar_feeds_hash ON calendar_feeds (token_hash);
