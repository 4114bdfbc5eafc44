// Package telegram is the Telegram Bot API channel ("telegram" connections).
//
// Routes (Service.Routes on transport/http):
//
//   - POST /telegram {name, token} creates a connection for a bot: the token is
//     checked with getMe, stored in persistence/credentials with a random web-hook
//     secret, and never answered. A token the tenant already has renews it.
//     connections:manage.
//   - POST /telegram/webhook/{connectionId} receives Updates in web-hook mode. The
//     X-Telegram-Bot-Api-Secret-Token header must equal the connection's secret
//     (given to setWebhook as secret_token); anything else is refused 401, logged and
//     not recorded. Bodies are capped (Config.MaxBody).
//
// Inbound mode (Config.Mode): "webhook" (Channel.Start calls setWebhook with
// PublicURL/telegram/webhook/{id}) or "polling" (Start calls deleteWebhook and runs a
// getUpdates long-poll loop). Polling runs only inside Channel.Start, and the channel
// is owned by the connection actor, which exists once in the whole cluster: exactly
// one node polls a bot. The offset moves past an update only once it is recorded.
//
// Messages: text, photo (largest size), audio, voice, video, video_note, document and
// sticker, downloaded with getFile and /file/bot<token>/<path> into the media store;
// reply_to_message becomes QuotedProviderID. Provider ids are "<chat id>:<message
// id>" (message ids are per chat); contacts are "tg:<chat id>". Re-deliveries are
// de-duplicated on the provider id by the ticket actor.
//
// Send: sendMessage with reply_parameters, sendPhoto/sendAudio/sendVideo/
// sendDocument as multipart. 429 (with parameters.retry_after), 5xx and network
// failures before the request was written wrap engine.ErrChannelTemporary; a send
// whose outcome is unknown (written, then the answer lost) is
// ERR_CHANNEL_OUTCOME_UNKNOWN and not retried (no idempotency key); a revoked token is
// ERR_CHANNEL_CREDENTIALS, an unknown chat ERR_WAPP_INVALID_CONTACT, any other refusal
// (bot blocked) ERR_CHANNEL_REFUSED. The Bot API has no delivery receipts: a sent
// message stays at ack 1.
//
// Bot tokens are part of Bot API URLs: transport errors are scrubbed of URLs so a
// token never reaches the logs. Safe for concurrent use.
package telegram
