-- Quick answers of a tenant (persistence/store/quickanswer.go). shortcut_norm (the
-- shortcut folded) orders the list; search is shortcut_norm and the folded message
-- joined by U+001F, matched with LIKE '%term%'. A tenant has hundreds of quick
-- answers, not millions: the tenant's rows are scanned in shortcut order.
CREATE TABLE quick_answers (
    id            INTEGER PRIMARY KEY,
    company_id    INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    shortcut      TEXT NOT NULL,
    message       TEXT NOT NULL,
    shortcut_norm TEXT NOT NULL,
    search        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE INDEX quick_answers_company_shortcut ON quick_answers (company_id, shortcut_norm, id);
