-- Contacts of a tenant with their extra info and sales opportunities
-- (persistence/store/contact.go).
--
-- name_norm is the name folded (lower case, accents removed, spaces collapsed) by the
-- store; with id it orders the contact list and is its keyset. search is
-- name_norm, number and e-mail joined by U+001F; searchParam is folded the same way
-- and matched with LIKE '%term%'. Both use the "C" collation so that order and
-- comparison are bytewise, the same as SQLite's, and a keyset cursor means the same
-- on both dialects.
--
-- number holds digits only for contacts made through the API (channels may store a
-- provider id); it is unique per tenant when not empty (Facebook and Instagram
-- contacts have none).
CREATE TABLE contacts (
    id              BIGSERIAL PRIMARY KEY,
    company_id      BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    name_norm       TEXT COLLATE "C" NOT NULL,
    number          TEXT COLLATE "C" NOT NULL DEFAULT '',
    email           TEXT NOT NULL DEFAULT '',
    search          TEXT COLLATE "C" NOT NULL,
    profile_pic_url TEXT NOT NULL DEFAULT '',
    display_pic     TEXT NOT NULL DEFAULT '',
    type            TEXT NOT NULL DEFAULT '',
    is_group        BOOLEAN NOT NULL DEFAULT FALSE,
    appraisal_sum   BIGINT NOT NULL DEFAULT 0,
    appraisal_count BIGINT NOT NULL DEFAULT 0,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);

CREATE UNIQUE INDEX contacts_company_number ON contacts (company_id, number) WHERE number <> '';
CREATE INDEX contacts_company_name ON contacts (company_id, name_norm, id);

-- A trigram index lets LIKE '%term%' on search use an index (terms of 3 or more
-- characters). pg_trgm is a trusted contrib extension; where it cannot be created the
-- search still works, by scanning the tenant's contacts in name order.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
    CREATE INDEX contacts_search_trgm ON contacts USING gin (search public.gin_trgm_ops);
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'contacts_search_trgm not created (%): contact search scans', SQLERRM;
END
$$;

-- position keeps the order the client sent the list in.
CREATE TABLE contact_extra_info (
    id         BIGSERIAL PRIMARY KEY,
    company_id BIGINT NOT NULL,
    contact_id BIGINT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    name       TEXT NOT NULL,
    value      TEXT NOT NULL DEFAULT ''
);

CREATE INDEX contact_extra_info_contact ON contact_extra_info (contact_id, position);

-- closing_status: NULL open, 1 won, 0 lost; once set it does not change.
CREATE TABLE contact_sales_opps (
    id             BIGSERIAL PRIMARY KEY,
    company_id     BIGINT NOT NULL,
    contact_id     BIGINT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    name           TEXT NOT NULL,
    value          TEXT NOT NULL DEFAULT '',
    stage          TEXT NOT NULL DEFAULT '',
    closing_status SMALLINT CHECK (closing_status IN (0, 1)),
    closed_at      TIMESTAMPTZ
);

CREATE INDEX contact_sales_opps_contact ON contact_sales_opps (contact_id, position);
