-- dash_zones records, per tenant, the time zone its dash_buckets' days, weeks,
-- months and years are in (an IANA name). The dashboard projection writes it the
-- first time it folds a tenant's events (from the tenant's timeZone setting) and
-- Rezone changes it, in the transaction that rebuilds the tenant's buckets, after an
-- admin changed the setting.
CREATE TABLE dash_zones (
    company_id INTEGER PRIMARY KEY,
    zone       TEXT NOT NULL
);
