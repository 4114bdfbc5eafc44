-- Tenants as the hosting operator manages them (persistence/store/company.go).
-- name_key is the folded name (lower case, no accents): two tenants cannot share a
-- name, case and accents ignored. Rows written before this migration get their
-- lower-cased name. disabled_at is set while the tenant is disabled: its users
-- cannot log in (engine/tenant.go).
ALTER TABLE companies ADD COLUMN name_key TEXT;
ALTER TABLE companies ADD COLUMN disabled_at TEXT;
UPDATE companies SET name_key = lower(trim(name));
CREATE UNIQUE INDEX companies_name_key ON companies (name_key);
