-- Reception-menu bot levels of a tenant (persistence/store/bot.go, docs/bots.md): a
-- tree of numbered menus. parent_id NULL is an option of the first menu; deleting a
-- level deletes its subtree, and so does deleting the queue or user an option routes
-- to (an option leading nowhere would strand the customer). command_bot is the number
-- the customer answers, unique among siblings (parent 0 standing for the first menu).
CREATE TABLE bot_levels (
    id              BIGSERIAL PRIMARY KEY,
    company_id      BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    parent_id       BIGINT REFERENCES bot_levels (id) ON DELETE CASCADE,
    parent_key      BIGINT NOT NULL DEFAULT 0,
    command_bot     INTEGER NOT NULL,
    description_bot TEXT NOT NULL,
    command_type    TEXT NOT NULL,
    show_message    TEXT NOT NULL DEFAULT '',
    user_id         BIGINT REFERENCES users (id) ON DELETE CASCADE,
    queue_id        BIGINT REFERENCES queues (id) ON DELETE CASCADE,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);

CREATE UNIQUE INDEX bot_levels_sibling_command ON bot_levels (company_id, parent_key, command_bot);
CREATE INDEX bot_levels_parent ON bot_levels (parent_id);
