-- The internal chat read model (persistence/readmodel/chats.go), fed from the journal
-- streams chat/<id> by the "chats" projection. A chat's rows are derived data: the
-- chat actor's journal is the truth, and Runner.Reset("chats") rebuilds them.
-- User ids are not foreign keys: a deleted user's messages stay in the chats.
CREATE TABLE chats (
    id           BIGINT PRIMARY KEY,
    company_id   BIGINT NOT NULL,
    uuid         TEXT NOT NULL,
    owner_id     BIGINT NOT NULL,
    title        TEXT NOT NULL,
    last_message TEXT NOT NULL DEFAULT '',
    search       TEXT COLLATE "C" NOT NULL DEFAULT '',
    version      BIGINT NOT NULL,
    deleted      BIGINT NOT NULL DEFAULT 0,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);

-- One row per participant: the list of a user's chats and their unread counts.
CREATE TABLE chat_users (
    chat_id    BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    company_id BIGINT NOT NULL,
    unreads    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (chat_id, user_id)
);

CREATE INDEX chat_users_user ON chat_users (company_id, user_id);

-- seq is the stream version of the event that posted the message: the order of the
-- chat and the key of its pages.
CREATE TABLE chat_messages (
    id         BIGINT PRIMARY KEY,
    chat_id    BIGINT NOT NULL,
    company_id BIGINT NOT NULL,
    seq        BIGINT NOT NULL,
    sender_id  BIGINT NOT NULL,
    body       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE UNIQUE INDEX chat_messages_chat_seq ON chat_messages (chat_id, seq);
