-- Tenant settings (persistence/store/setting.go). Keys are engine.SettingDefaults';
-- a key without a row has its default value.
CREATE TABLE settings (
    company_id INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (company_id, key)
);
