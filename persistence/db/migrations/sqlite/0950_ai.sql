-- AI assistance (docs/ai.md). A message's latest translation (PUT /messages/{id}),
-- projected from ticket.message_translated.
ALTER TABLE messages ADD COLUMN translation TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN translation_language TEXT NOT NULL DEFAULT '';

-- Each tenant's OpenAI-compatible endpoint. api_key is sealed (AES-256-GCM under the
-- server's AI key, bound to the tenant: persistence/aiconfig); '' when none is set.
CREATE TABLE ai_configs (
    company_id   INTEGER NOT NULL PRIMARY KEY,
    base_url     TEXT NOT NULL,
    api_key      TEXT NOT NULL DEFAULT '',
    model        TEXT NOT NULL,
    speech_model TEXT NOT NULL,
    voice        TEXT NOT NULL,
    updated_at   INTEGER NOT NULL
);

-- NLP intents (/NLPConfig): examples is a JSON array of phrases.
CREATE TABLE ai_intents (
    id         INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL,
    name       TEXT NOT NULL,
    examples   TEXT NOT NULL,
    queue_id   INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX ai_intents_name ON ai_intents (company_id, lower(name));
