-- WhatsApp (transport/channel/whatsapp). whatsmeow keeps its own tables (whatsmeow_*,
-- created by its upgrade at start); these map our connections onto its devices and
-- make sends idempotent. Times are Unix microseconds (UTC).
CREATE TABLE whatsapp_devices (
    connection_id INTEGER PRIMARY KEY,
    jid           TEXT NOT NULL,
    updated_at    INTEGER NOT NULL
);

-- The WhatsApp message id generated for each of our outbound messages: a retry of the
-- same MessageID (after a crash or a timeout) re-sends under the same id.
CREATE TABLE whatsapp_sent (
    connection_id INTEGER NOT NULL,
    message_id    INTEGER NOT NULL,
    wa_id         TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (connection_id, message_id)
);

-- whatsmeow's version table, created here so that its upgrade finds it in the current
-- schema (its existence check on PostgreSQL looks at every schema of the database).
CREATE TABLE IF NOT EXISTS whatsmeow_version (version INTEGER, compat INTEGER);
