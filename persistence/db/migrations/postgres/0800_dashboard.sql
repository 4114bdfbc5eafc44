-- The dashboard read model (persistence/dashboard), folded from the ticket streams of
-- the journal by the "dashboard" projection.
--
-- dash_tickets keeps, per ticket, only what the fold needs to place the ticket's next
-- event: when it opened and when its current cycle (opening or last reopening) began,
-- in Unix microseconds, where it is counted now, whether an attendant answered it yet,
-- and the last stream version folded (a replayed batch is a no-op).
CREATE TABLE dash_tickets (
    ticket_id  BIGINT PRIMARY KEY,
    company_id BIGINT NOT NULL,
    opened_at  BIGINT NOT NULL,
    cycle_at   BIGINT NOT NULL,
    status     TEXT NOT NULL,
    queue_id   BIGINT NOT NULL DEFAULT 0,
    user_id    BIGINT NOT NULL DEFAULT 0,
    channel    TEXT NOT NULL DEFAULT '',
    responded  SMALLINT NOT NULL DEFAULT 0,
    deleted    SMALLINT NOT NULL DEFAULT 0,
    version    BIGINT NOT NULL
);

-- dash_buckets holds counters per tenant, period and dimension. grain is 'd' (period =
-- days since 1970-01-01 of the dashboard's time zone), 'm' (year*12 + month-1) or 'y'
-- (the year); every change is written at the three grains, so a range is summed from
-- at most a few runs of days, months and years whatever its length. metric names the
-- counter (see persistence/dashboard); queue_id, user_id and channel are 0 or '' where
-- the metric is not broken down by them.
CREATE TABLE dash_buckets (
    company_id BIGINT NOT NULL,
    grain      TEXT NOT NULL,
    period     INTEGER NOT NULL,
    metric     TEXT NOT NULL,
    queue_id   BIGINT NOT NULL DEFAULT 0,
    user_id    BIGINT NOT NULL DEFAULT 0,
    channel    TEXT NOT NULL DEFAULT '',
    n          BIGINT NOT NULL,
    PRIMARY KEY (company_id, grain, period, metric, queue_id, user_id, channel)
);

-- The series reads four metrics over many periods: this index holds what it reads
-- (covering), so it touches only those rows.
CREATE INDEX dash_buckets_series ON dash_buckets (company_id, grain, metric, period, queue_id, n);

-- The dashboard sums a tenant's opportunities by closing status.
CREATE INDEX contact_sales_opps_company ON contact_sales_opps (company_id, closing_status);
