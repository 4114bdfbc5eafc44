// Package waba is the WhatsApp Business Cloud API channel ("waba" connections).
//
// Routes (registered by Service.Routes on transport/http):
//
//   - POST /wacloudapi registers a Cloud API number (spec section 7 fields
//     currWabaId, currWabaPhoneId, currPhoneNumber, currVerifiedName, currWabaToken):
//     checks the token against the number, subscribes the Meta app to the business
//     account's web-hooks, creates the connection and stores the credentials in
//     persistence/credentials (the answer never carries them). Registering a number
//     the tenant already has renews its token. connections:manage.
//   - POST /wacloudapi/embedded finishes Meta's embedded signup (body code, wabaId,
//     phoneNumberId, pin): exchanges the code for a business token with the app's id
//     and secret, subscribes the app, registers the number for Cloud API messaging
//     with a two-step verification PIN (given, already stored, or random; kept in the
//     credentials' Secret), reads the number and creates the connection as POST
//     /wacloudapi does. GET /wacloudapi/embedded/config hands the browser the app id
//     and the embedded signup configuration id. connections:manage.
//   - GET /wabatemplates lists the approved templates (HSM) of the tenant's business
//     accounts; POST /waba/sendtemplatemessage/ sends one to a ticket's contact and
//     records its rendered text in the contact's ticket as our message, through the
//     connection actor's sink (FromMe, with the wamid).
//   - GET /waba/webhook answers Meta's subscription handshake with Config.VerifyToken;
//     POST /waba/webhook receives notifications, signed with the app secret
//     (X-Hub-Signature-256). A bad or missing signature is refused 401, logged, and
//     nothing is recorded. Bodies are capped (Config.MaxBody).
//
// A web-hook runs on whichever node received it: it finds the connection by the
// phone number id, downloads media (GET /{media-id}, then the URL with the token) into
// the media store, hands each message and status to the connection actor through
// Actors.Sink, and answers 200 only once all of them are durable — 500 otherwise, so
// Meta delivers again. Inbound is de-duplicated on the WhatsApp message id (wamid) by
// the ticket actor, so a re-delivery is harmless.
//
// Channel (one per connection, owned by its actor) sends text and media (uploaded
// with POST /{phone-number-id}/media, then sent by id) with replies as context.
// Failures that are worth retrying (5xx, throttling, network before the request was
// written) wrap engine.ErrChannelTemporary; a send whose outcome is unknown (written,
// then the answer lost) is meta.ErrOutcomeUnknown and not retried, as the Cloud API
// has no idempotency key; an expired token is ERR_CHANNEL_CREDENTIALS, a number
// that is not on WhatsApp ERR_WAPP_INVALID_CONTACT, any other refusal
// ERR_CHANNEL_REFUSED (meta.Classify).
//
// Safe for concurrent use.
package waba
