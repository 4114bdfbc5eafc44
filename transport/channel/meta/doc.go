// Package meta is the Facebook Messenger and Instagram channel ("facebook" and
// "instagram" connections), and the Meta Graph API pieces the WABA adapter shares:
// the Graph client and its error classification (Classify), web-hook signature
// checking (X-Hub-Signature-256, CheckSignature/ReadSigned), the hub.challenge
// handshake and the signed web-hook's flow (ServeSigned), the channels' Session, the
// Router seam and Upsert of a connection with its credentials. What Telegram shares
// too lives in transport/channel/cloud.
//
// Routes (Service.Routes on transport/http):
//
//   - POST /facebook {facebookUserId, facebookUserToken, addInstagram?} lists the
//     user's pages (GET /{user-id}/accounts) and makes one "facebook" connection per
//     page and, with addInstagram, one "instagram" connection per linked
//     instagram_business_account. Page tokens go to persistence/credentials, never
//     to the answer. A page already connected gets its token renewed.
//   - POST /hubregister/ {id} subscribes the connection's page (or, for WABA, its
//     business account) to the app's web-hooks: POST /{id}/subscribed_apps; 200
//     {"success": true} means subscribed.
//   - GET /meta/webhook is the hub.challenge handshake; POST /meta/webhook receives
//     objects "page" and "instagram" (entry[].messaging[]: message, delivery, read,
//     echoes), signed with the app secret. A bad or missing signature is refused 401,
//     logged, and nothing is recorded.
//
// Contacts are "fb:<page-scoped id>" and "ig:<instagram-scoped id>". Inbound is
// de-duplicated on the message id (mid) by the ticket actor; a message with several
// attachments becomes one message per attachment ("<mid>", "<mid>/1", …). Echoes of
// messages sent by another app (the Page inbox) are recorded FromMe; echoes of our
// own app (Config.AppID) are skipped. Delivery receipts name their mids (ack 1);
// Instagram reads name their mid (ack 3); Messenger reads carry only a watermark and
// are not mapped to messages.
//
// Send uses the Send API (POST /{page-id}/messages, messaging_type RESPONSE, page
// token; Instagram through its linked page): text, or an attachment uploaded as
// multipart filedata (a caption follows as a text message).
//
// Safe for concurrent use.
package meta
