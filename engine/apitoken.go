package engine

import (
	"context"
	"strings"
	"time"
)

// API tokens: the credentials of the messaging API (POST /api/messages/send), one set
// per tenant, managed by its administrators on the /MessagingAPI page. A token is a
// random secret shown once when it is created; only its SHA-256 is stored, so that a
// copy of the database does not hold usable credentials. A revoked token is refused
// from the next request on, on every node: each call looks the hash up in the
// database (see APITokenStore.Authenticate).

// APITokenNameMin and APITokenNameMax bound a token's name, in characters, as the
// other names of section 5 (2 to 50).
const (
	APITokenNameMin = 2
	APITokenNameMax = 50
)

// APIToken is one token of a tenant, without its secret.
type APIToken struct {
	ID        ID     `json:"id"`
	CompanyID ID     `json:"companyId"`
	Name      string `json:"name"`
	// Prefix is the start of the secret (its fixed "atk_" and a few characters),
	// enough for an administrator to tell which token a client holds.
	Prefix string `json:"prefix"`
	// UserID is the administrator who created it; tickets the API has to open are
	// opened on their behalf.
	UserID     ID         `json:"userId"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
}

// APITokenInput is the create form.
type APITokenInput struct {
	Name string `json:"name"`
}

// ValidateAPIToken: name required, 2 to 50 characters, one line.
func ValidateAPIToken(in APITokenInput) (APITokenInput, error) {
	out := APITokenInput{Name: strings.TrimSpace(in.Name)}
	f := fieldErrors{}
	f.text("name", out.Name, true, APITokenNameMin, APITokenNameMax)
	return finish(in, out, f)
}

// APISend is the record of one messaging-API send made under an Idempotency-Key: the
// message id it was given (the send's idempotency key on the outbound path) and, once
// delivered, the ticket it went to.
type APISend struct {
	MessageID ID
	TicketID  ID // 0 until the send was recorded on a ticket
	ContactID ID
}

// APITokenStore keeps a tenant's API tokens and the idempotency records of the
// messaging API. Every method that takes a companyID reads and writes that tenant's
// rows only.
type APITokenStore interface {
	// List returns the tenant's tokens, newest first, revoked ones included.
	List(ctx context.Context, companyID ID) ([]APIToken, error)
	// Create stores a token named in.Name (validated here) whose secret hashes to
	// hash (hex SHA-256) and starts with prefix.
	Create(ctx context.Context, companyID, userID ID, in APITokenInput, hash, prefix string) (APIToken, error)
	// Revoke marks the token revoked (once: revoking again keeps the first time) and
	// returns it; ErrNoAPITokenFound when the tenant has no token id.
	Revoke(ctx context.Context, companyID, id ID) (APIToken, error)
	// Authenticate returns the live token whose secret hashes to hash, and notes its
	// use; ErrInvalidToken for an unknown or revoked one, or one of a disabled tenant.
	Authenticate(ctx context.Context, hash string) (APIToken, error)
	// ClaimSend returns the send recorded for the tenant under key, or records one
	// with messageID when there is none (existed false). Two claims of one key at the
	// same time get the same record.
	ClaimSend(ctx context.Context, companyID ID, key string, messageID, contactID ID) (s APISend, existed bool, err error)
	// FinishSend records the ticket the send under key went to.
	FinishSend(ctx context.Context, companyID ID, key string, ticketID ID) error
}

// MaxIdempotencyKey is the longest Idempotency-Key the messaging API accepts, in
// bytes.
const MaxIdempotencyKey = 255

// ValidIdempotencyKey reports whether k may be an Idempotency-Key: 1 to
// MaxIdempotencyKey printable ASCII characters (a UUID, a client's own order id).
func ValidIdempotencyKey(k string) bool {
	if k == "" || len(k) > MaxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// Bounds of a phone number the messaging API sends to on a phone channel (WhatsApp,
// WABA), in digits with the country code: E.164 numbers have at most 15 digits, and
// the shortest numbers in use with a country code have 8.
const (
	APINumberMinDigits = 8
	APINumberMaxDigits = 15
)

// APIRecipient decides how the messaging API reaches number on a connection of
// channel. On a phone channel (WhatsApp, WABA) the number is normalised
// (NormalizePhone) and must have 8 to 15 digits; the contact is found or created with
// it (create true). On the other channels (web chat, Facebook, Instagram, Telegram)
// a customer can only be written to after they wrote first, and their "number" is
// the provider's id for them: it is taken as given (trimmed, at most 50 characters)
// and must be an existing contact (create false). Anything else is
// ErrWappInvalidContact.
func APIRecipient(channel, number string) (normalized string, create bool, err error) {
	switch channel {
	case ChannelWhatsApp, ChannelWABA, "":
		digits, ok := NormalizePhone(number)
		if !ok || len(digits) < APINumberMinDigits || len(digits) > APINumberMaxDigits {
			return "", false, E(ErrWappInvalidContact)
		}
		return digits, true, nil
	default:
		n := strings.TrimSpace(number)
		if n == "" || runeLen(n) > 50 || !singleLine(n) {
			return "", false, E(ErrWappInvalidContact)
		}
		return n, false, nil
	}
}
