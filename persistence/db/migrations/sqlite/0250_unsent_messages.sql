-- Messages of ours still at ack 0 (not accepted by any channel yet): a connection
-- re-sends them when it starts (readmodel/outbox.go). The index stays small: a
-- message leaves it once its send is acknowledged.
CREATE INDEX messages_unsent ON messages (ticket_id) WHERE from_me AND ack = 0;
