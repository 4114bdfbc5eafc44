-- The queues of each user (persistence/store/user.go). Numbered after 0150_queues,
-- whose table it references. Rows go with their user or queue.
CREATE TABLE user_queues (
    company_id INTEGER NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    queue_id   INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, queue_id)
);

CREATE INDEX user_queues_queue ON user_queues (queue_id);
