-- The word index of word search (m: in the ticket manager), kept per ticket: the
-- words of its messages that are not deleted, folded in Go (engine.SearchWords: lower
-- case, accents removed) and stored as stripped 'simple' tsvectors (lexemes only),
-- under a GIN index. Word search never scans message bodies.
--
-- Why per ticket rather than per message: the list shows tickets, newest first. With
-- words per ticket, "does this ticket mention the word" is one primary-key probe, so
-- the list index can be walked in order, stopping after a page, when the word is
-- common; when it is rare, the GIN index gives the few tickets directly. With one row
-- per message, the walk had to read every message of each ticket it passed (measured:
-- seconds at 10M messages). A ticket matches when every searched word occurs in it.
--
-- A ticket's words are split in chunks of 256 messages (chunk = seq / 256), so that
-- adding words to a long conversation rewrites one bounded row and its GIN entries,
-- not the whole conversation's vocabulary. The projection adds the new words of a
-- batch with one upsert per chunk (skipped when the chunk already has them all) and
-- rebuilds a chunk from its remaining messages when one of them is deleted. multi
-- marks every chunk of a ticket that has more than one: a search for several words
-- reads the rows holding them all from ticket_words_words (the GIN index intersects
-- the words), plus the multi rows holding the rarest one from the small partial index
-- ticket_words_multi, whose tickets may hold the words in different chunks.
CREATE TABLE ticket_words (
    ticket_id  BIGINT NOT NULL,
    chunk      INTEGER NOT NULL,
    company_id BIGINT NOT NULL,
    multi      BOOLEAN NOT NULL DEFAULT FALSE,
    words      TSVECTOR NOT NULL,
    PRIMARY KEY (ticket_id, chunk)
);

CREATE INDEX ticket_words_words ON ticket_words USING gin (words);
CREATE INDEX ticket_words_multi ON ticket_words USING gin (words) WHERE multi;
