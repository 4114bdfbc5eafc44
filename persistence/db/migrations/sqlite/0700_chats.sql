-- The internal chat read model (persistence/readmodel/chats.go), fed from the journal
-- streams chat/<id> by the "chats" projection. A chat's rows are derived data: the
-- chat actor's journal is the truth, and Runner.Reset("chats") rebuilds them.
-- User ids are not foreign keys: a deleted user's messages stay in the chats.
CREATE TABLE chats (
    id           INTEGER PRIMARY KEY,
    company_id   INTEGER NOT NULL,
    uuid         TEXT NOT NULL,
    owner_id     INTEGER NOT NULL,
    title        TEXT NOT NULL,
    last_message TEXT NOT NULL DEFAULT '',
    search       TEXT NOT NULL DEFAULT '',
    version      INTEGER NOT NULL,
    deleted      INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

-- One row per participant: the list of a user's chats and their unread counts.
CREATE TABLE chat_users (
    chat_id    INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    company_id INTEGER NOT NULL,
    unreads    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (chat_id, user_id)
);

CREATE INDEX chat_users_user ON chat_users (company_id, user_id);

-- seq is the stream version of the event that posted the message: the order of the
-- chat and the key of its pages.
CREATE TABLE chat_messages (
    id         INTEGER PRIMARY KEY,
    chat_id    INTEGER NOT NULL,
    company_id INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    sender_id  INTEGER NOT NULL,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE UNIQUE INDEX chat_messages_chat_seq ON chat_messages (chat_id, seq);
