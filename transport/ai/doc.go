// Package ai implements engine.AI on the official OpenAI Go client (openai-go) pointed
// at each tenant's configured base URL: chat completions for questions, translations
// and intent classification, the speech endpoint for voice notes.
//
// Every call reads the tenant's configuration (engine.AIConfigStore), so a change on
// /iaconfig applies to the next request on every node. Answers are read through a
// bounded body (Config.MaxBodyBytes): a provider answering an endless or huge body
// fails with ERR_AI_UNAVAILABLE instead of filling memory. The provider's failures
// map to the catalogue: 401/403 ERR_AI_CREDENTIALS, 429 ERR_AI_RATE_LIMITED, anything
// else (5xx, timeouts, unreadable answers) ERR_AI_UNAVAILABLE; without a
// configuration, ERR_AI_NOT_CONFIGURED.
//
// Package fakeai is the fake of the API's wire format the tests run against.
//
// A *Client is safe for concurrent use.
package ai
