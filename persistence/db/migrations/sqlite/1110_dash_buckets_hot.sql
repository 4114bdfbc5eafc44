-- The count leaves the series index, as on PostgreSQL (where it kept increments from
-- being HOT updates): an increment then rewrites the row only, not an index entry.
DROP INDEX dash_buckets_series;
CREATE INDEX dash_buckets_series ON dash_buckets (company_id, grain, metric, period, queue_id);
