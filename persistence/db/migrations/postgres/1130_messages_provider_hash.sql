-- The index of the channel's message ids (receipts, replies, edits find their message
-- through it) keys on a 4-byte hash of the id instead of the id itself (~25 B for a
-- WhatsApp id): ~20 B an entry instead of ~52, on every message ever stored. The
-- lookup compares the id itself on the rows the hash finds (readmodel.Locator).
DROP INDEX messages_provider;
CREATE INDEX messages_provider ON messages (hashtext(provider_id)) WHERE provider_id <> '';
