-- Sends handed to a channel that cannot de-duplicate a re-send (waba, meta, telegram;
-- see engine.IdempotentSender): the connection actor writes a row before the first
-- attempt of a message and removes it when the attempt shows the provider did not take
-- it. A message still waiting to be sent whose row exists had its outcome lost (the
-- node died between the provider's answer and the ack): the next activation fails it
-- with ERR_CHANNEL_OUTCOME_UNKNOWN instead of sending it twice. Rows of messages that
-- no longer wait (acked, failed, deleted) are pruned an hour after the attempt
-- (persistence/readmodel/outbox.go). attempted_at is Unix microseconds (UTC).
CREATE TABLE send_attempts (
    connection_id BIGINT NOT NULL,
    message_id    BIGINT NOT NULL,
    attempted_at  BIGINT NOT NULL,
    PRIMARY KEY (connection_id, message_id)
);
