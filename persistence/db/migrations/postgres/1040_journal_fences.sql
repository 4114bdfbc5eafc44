-- Fencing of cluster members (see persistence/journal/fence.go). Each node process
-- registers its member id at start; every group-commit transaction of that process
-- takes a shared advisory lock on the id and checks that the row is not revoked. A
-- survivor revokes a member the cluster declared dead under the exclusive lock, so
-- the revocation waits for that member's transactions in flight, and every later one
-- is refused: no write of a fenced member commits after its revocation.
CREATE TABLE journal_fences (
    member     TEXT PRIMARY KEY,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at TIMESTAMPTZ
);
