-- Catalog categories and items of a tenant (persistence/store/catalog.go).
-- name_key is the folded name (case, accents and spaces ignored): the unique indexes
-- on (company_id, name_key) make a duplicate name fail in the database itself, so two
-- concurrent creations of the same name cannot both succeed (ERR_CATEGORYNAME_DUPLICATED,
-- ERR_CATALOG_DUPLICATED). Money is kept in integer cents. An item's category goes to
-- none when the category is deleted.
CREATE TABLE catalog_categories (
    id            INTEGER PRIMARY KEY,
    company_id    INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    category_name TEXT NOT NULL,
    name_key      TEXT NOT NULL,
    mustaccio     TEXT NOT NULL DEFAULT 'imageText',
    display_name  TEXT NOT NULL DEFAULT '',
    is_active     BOOLEAN NOT NULL DEFAULT TRUE,
    template      TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE UNIQUE INDEX catalog_categories_company_name ON catalog_categories (company_id, name_key);

CREATE TABLE catalog_items (
    id             INTEGER PRIMARY KEY,
    company_id     INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    category_id    INTEGER REFERENCES catalog_categories (id) ON DELETE SET NULL,
    item_name      TEXT NOT NULL,
    name_key       TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    manufacturer   TEXT NOT NULL DEFAULT '',
    dimensions     TEXT NOT NULL DEFAULT '',
    unit_name      TEXT NOT NULL DEFAULT '',
    pax            INTEGER NOT NULL DEFAULT 0,
    sort_order     INTEGER NOT NULL DEFAULT 0,
    base_cents     INTEGER NOT NULL DEFAULT 0,
    delivery_cents INTEGER NOT NULL DEFAULT 0,
    product_img    TEXT NOT NULL DEFAULT '',
    user_data      TEXT NOT NULL DEFAULT '[]',
    search         TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);

CREATE UNIQUE INDEX catalog_items_company_name ON catalog_items (company_id, name_key);
CREATE INDEX catalog_items_company_order ON catalog_items (company_id, sort_order, name_key, id);
CREATE INDEX catalog_items_category ON catalog_items (category_id);
