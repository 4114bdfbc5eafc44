-- A tenant's events in position order: the dashboard's rebuild of one tenant after a
-- time zone change (journal.Store.ReadCompany) reads them without walking the rest
-- of the journal.
CREATE INDEX events_company ON events (company_id, position);
