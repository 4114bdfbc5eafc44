// Package fakeai (named like fakewa: production code may run it behind a flag, so it
// is not a test-support package) is a local fake of the OpenAI HTTP API's wire format, for tests, the
// browser flows and a development server (--ai-fake): POST /v1/chat/completions and
// POST /v1/audio/speech, with OpenAI's error answers.
//
// Its answers are deterministic so that tests can assert them:
//
//   - a translation request (system turn "Translate the user's message into <L>.")
//     answers "[<L>] <text>";
//   - an intent request (system turn "Classify the customer's message…" listing
//     "- Name: example | example") answers the name of the intent sharing the most
//     words with the message, or "none";
//   - anything else answers "AI answer (<n> turns): <last user turn>".
//
// Failures are chosen per fake (SetFailure) or per request: a last user turn holding
// "[fake:401]", "[fake:429]", "[fake:500]", "[fake:timeout]", "[fake:badjson]" or
// "[fake:huge]" answers that failure. Speech answers a real WAV file (a short tone,
// 8 kHz mono PCM) when asked for response_format "wav", and a 400 for formats it cannot
// make. A configured API key is checked as OpenAI does (Authorization: Bearer).
//
// A *Fake is safe for concurrent use.
package fakeai
