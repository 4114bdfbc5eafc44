-- Announcements of a tenant (persistence/store/announcement.go), listed newest first.
-- search is the folded title and text joined by U+001F, matched with LIKE '%term%'.
-- A tenant has tens of announcements, not millions: its rows are scanned in order.
CREATE TABLE announcements (
    id          BIGSERIAL PRIMARY KEY,
    company_id  BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    title       TEXT NOT NULL,
    text        TEXT NOT NULL,
    priority    SMALLINT NOT NULL DEFAULT 3,
    media_path  TEXT NOT NULL DEFAULT '',
    media_name  TEXT NOT NULL DEFAULT '',
    status      BOOLEAN NOT NULL DEFAULT TRUE,
    search      TEXT COLLATE "C" NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

CREATE INDEX announcements_company_created ON announcements (company_id, created_at DESC, id DESC);
