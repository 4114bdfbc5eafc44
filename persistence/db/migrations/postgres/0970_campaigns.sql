-- Campaigns and broadcasts (persistence/campaign, docs/campaigns.md). A campaign is a
-- durable outbound job: its segment is expanded once into campaign_sends, one row per
-- (campaign, contact, message) with the message id it is sent under (allocated with
-- the row, so a send retried after a crash reaches the channel under the same id).
-- River jobs (one per campaign and connection) work the pending rows. Times are Unix
-- microseconds (UTC); spec is the creation input as JSON.
CREATE TABLE campaigns (
    id           BIGSERIAL PRIMARY KEY,
    company_id   BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    name         TEXT NOT NULL,
    plan_name    TEXT NOT NULL DEFAULT '',
    spec         TEXT NOT NULL DEFAULT '{}',
    status       TEXT NOT NULL,
    start_at     BIGINT NOT NULL,
    user_id      BIGINT NOT NULL DEFAULT 0,
    total        INTEGER NOT NULL DEFAULT 0,
    sent_count   INTEGER NOT NULL DEFAULT 0,
    error_count  INTEGER NOT NULL DEFAULT 0,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    CHECK (kind IN ('campaign', 'broadcast')),
    CHECK (status IN ('scheduled', 'running', 'paused', 'cancelled', 'finished'))
);

CREATE INDEX campaigns_company ON campaigns (company_id, kind, id);

-- status 'sending' is a claimed row whose outcome is not recorded yet; a row left
-- sending by a node that died is claimed again after a while and re-sent under the
-- same message id.
CREATE TABLE campaign_sends (
    id            BIGSERIAL PRIMARY KEY,
    company_id    BIGINT NOT NULL,
    campaign_id   BIGINT NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    contact_id    BIGINT NOT NULL,
    seq           INTEGER NOT NULL,
    connection_id BIGINT NOT NULL,
    number        TEXT NOT NULL,
    contact_name  TEXT NOT NULL DEFAULT '',
    params        TEXT NOT NULL DEFAULT '',
    message_id    BIGINT NOT NULL UNIQUE,
    status        TEXT NOT NULL DEFAULT 'pending',
    error         TEXT NOT NULL DEFAULT '',
    claimed_at    BIGINT NOT NULL DEFAULT 0,
    sent_at       BIGINT NOT NULL DEFAULT 0,
    UNIQUE (campaign_id, contact_id, seq),
    CHECK (status IN ('pending', 'sending', 'sent', 'error'))
);

CREATE INDEX campaign_sends_work ON campaign_sends (campaign_id, connection_id, status, id);

-- The part of each connection in a campaign: when its next send is due and why it
-- waits (ERR_DAILY_MAX_REACHED, ERR_UNAVAILABLE, ERR_NO_CREDITS, '' when it does not);
-- done once it has nothing left. The campaign's next send time is the earliest of
-- its lanes that are not done.
CREATE TABLE campaign_lanes (
    campaign_id   BIGINT NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    connection_id BIGINT NOT NULL,
    next_send_at  BIGINT NOT NULL DEFAULT 0,
    wait_reason   TEXT NOT NULL DEFAULT '',
    done          BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (campaign_id, connection_id)
);

-- Campaign sends of each connection per day of the tenant's zone ('2026-11-27'),
-- held under the connection's dailyMax by a conditional UPDATE.
CREATE TABLE campaign_quota (
    connection_id BIGINT NOT NULL,
    day           TEXT NOT NULL,
    sent          INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (connection_id, day)
);

-- Broadcast credits of each tenant: set by an admin, taken one per send.
CREATE TABLE campaign_credits (
    company_id BIGINT PRIMARY KEY REFERENCES companies (id) ON DELETE CASCADE,
    credits    BIGINT NOT NULL DEFAULT 0
);
