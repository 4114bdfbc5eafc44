-- PostgreSQL's messages_provider keys on a hash of the id from here on; SQLite keeps
-- the id itself (it has no immutable string hash to index). The version is here so
-- both dialects carry the same ones.
SELECT 1;
