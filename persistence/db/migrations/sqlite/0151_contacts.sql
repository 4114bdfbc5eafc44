-- Contacts of a tenant with their extra info and sales opportunities
-- (persistence/store/contact.go).
--
-- name_norm is the name folded (lower case, accents removed, spaces collapsed) by the
-- store; with id it orders the contact list and is its keyset. search is
-- name_norm, number and e-mail joined by U+001F; searchParam is folded the same way
-- and matched with LIKE '%term%'. Comparison is bytewise (BINARY), the same as the
-- "C" collation on PostgreSQL, so a keyset cursor means the same on both dialects.
--
-- number holds digits only for contacts made through the API (channels may store a
-- provider id); it is unique per tenant when not empty (Facebook and Instagram
-- contacts have none).
CREATE TABLE contacts (
    id              INTEGER PRIMARY KEY,
    company_id      INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    name_norm       TEXT NOT NULL,
    number          TEXT NOT NULL DEFAULT '',
    email           TEXT NOT NULL DEFAULT '',
    search          TEXT NOT NULL,
    profile_pic_url TEXT NOT NULL DEFAULT '',
    display_pic     TEXT NOT NULL DEFAULT '',
    type            TEXT NOT NULL DEFAULT '',
    is_group        INTEGER NOT NULL DEFAULT 0,
    appraisal_sum   INTEGER NOT NULL DEFAULT 0,
    appraisal_count INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);

CREATE UNIQUE INDEX contacts_company_number ON contacts (company_id, number) WHERE number <> '';
CREATE INDEX contacts_company_name ON contacts (company_id, name_norm, id);

-- position keeps the order the client sent the list in.
CREATE TABLE contact_extra_info (
    id         INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL,
    contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    name       TEXT NOT NULL,
    value      TEXT NOT NULL DEFAULT ''
);

CREATE INDEX contact_extra_info_contact ON contact_extra_info (contact_id, position);

-- closing_status: NULL open, 1 won, 0 lost; once set it does not change.
CREATE TABLE contact_sales_opps (
    id             INTEGER PRIMARY KEY,
    company_id     INTEGER NOT NULL,
    contact_id     INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    name           TEXT NOT NULL,
    value          TEXT NOT NULL DEFAULT '',
    stage          TEXT NOT NULL DEFAULT '',
    closing_status INTEGER CHECK (closing_status IN (0, 1)),
    closed_at      TEXT
);

CREATE INDEX contact_sales_opps_contact ON contact_sales_opps (contact_id, position);
