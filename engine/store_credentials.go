package engine

import (
	"context"
	"errors"
	"fmt"
)

// The providers whose connections keep credentials (cloud channels). WhatsApp Web
// keeps its device in whatsmeow's own tables instead.
const (
	ProviderWABA      = "waba"
	ProviderFacebook  = "facebook"
	ProviderInstagram = "instagram"
	ProviderTelegram  = "telegram"
)

// ChannelCredentials are what a cloud channel adapter needs to speak for one
// connection: the provider's id that routes its web-hooks here, a second account id
// and the secrets. They never leave the server.
type ChannelCredentials struct {
	ConnectionID ID
	CompanyID    ID
	Provider     string // one of the Provider… constants
	// ExternalID routes an inbound web-hook to its connection: WABA phone number id,
	// Facebook page id, Instagram account id, Telegram bot id. Unique per provider.
	ExternalID string
	// AccountID is the WhatsApp business account id, or the page an Instagram account
	// is linked to (whose token sends its messages).
	AccountID string
	Token     string // access token or bot token (secret)
	// Secret is the connection's other secret: Telegram's web-hook secret_token, or
	// the two-step verification pin a WABA number was registered with (kept so that a
	// re-registration uses the same pin).
	Secret string
}

// String redacts the secrets, so that a stray %v in a log line cannot leak one.
func (c ChannelCredentials) String() string {
	return fmt.Sprintf("credentials{conn=%d provider=%s external=%s account=%s token=%s secret=%s}",
		c.ConnectionID, c.Provider, c.ExternalID, c.AccountID, redact(c.Token), redact(c.Secret))
}

func redact(s string) string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// ErrCredentialsTaken is Put's answer when another connection already holds the
// provider id (the same page or number registered twice).
var ErrCredentialsTaken = errors.New("credentials: provider id already registered to another connection")

// CredentialStore keeps the credentials of cloud channel connections, one row per
// connection; deleting the connection deletes its row.
type CredentialStore interface {
	// Put creates or replaces the connection's credentials.
	Put(ctx context.Context, c ChannelCredentials) error
	// Get is the connection's credentials, or ErrNotFound.
	Get(ctx context.Context, connectionID ID) (ChannelCredentials, error)
	// ByExternal finds the connection a provider's web-hook addresses, or ErrNotFound.
	ByExternal(ctx context.Context, provider, externalID string) (ChannelCredentials, error)
	// ByCompany lists a tenant's credentials of one provider, by connection id.
	ByCompany(ctx context.Context, companyID ID, provider string) ([]ChannelCredentials, error)
	Delete(ctx context.Context, connectionID ID) error
}
