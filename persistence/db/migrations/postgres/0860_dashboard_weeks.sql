-- dash_buckets gains a fourth grain, 'w': ISO weeks (Monday to Sunday) of the tenant's
-- zone, period = persistence/dashboard.WeekNumber of the week's days. The counters
-- written before have no week rows, so the dashboard projection is rebuilt: its read
-- model is emptied and its checkpoint goes back to 0, and the runner replays the
-- journal (the same as Runner.Reset("dashboard")).
DELETE FROM dash_tickets;
DELETE FROM dash_buckets;
UPDATE projection_checkpoints SET position = 0 WHERE name = 'dashboard';
