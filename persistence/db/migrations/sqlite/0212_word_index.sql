-- The word index of word search (m: in the ticket manager): an FTS5 table holding no
-- text of its own (content=''), one row per message with rowid = messages.id, fed
-- with the body's words folded in Go (engine.SearchWords). A ticket matches when every
-- searched word occurs in one of its messages that is not deleted (the PostgreSQL
-- migration of this version keeps the words per ticket instead; the answers are the
-- same). Word search never scans message bodies.
CREATE VIRTUAL TABLE messages_fts USING fts5 (words, content = '', tokenize = 'unicode61');
