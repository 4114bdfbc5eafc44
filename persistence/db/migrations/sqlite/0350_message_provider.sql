-- Channel-side lookups by the channel's message id (persistence/readmodel/locator.go):
-- a connection actor that restarted no longer remembers which of its messages a
-- receipt, a quote or a "delete for everyone" names, nor which inbound messages it
-- already stored in an earlier ticket. Provider ids are nearly unique, so the index
-- alone finds the row; the ticket's connection is checked on the tickets row.
CREATE INDEX messages_provider ON messages (provider_id) WHERE provider_id <> '';

-- A message of ours the channel refused for good (ticket.message_failed): it stays at
-- ack 0 but the outbox no longer re-sends it.
ALTER TABLE messages ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;
