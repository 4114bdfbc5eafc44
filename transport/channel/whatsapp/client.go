package whatsapp

import (
	"context"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/types"
	waLog "go.mau.fi/whatsmeow/util/log"
)

// Client is the part of *whatsmeow.Client the adapter uses. Production uses the real
// client; the fake pairing flow (package fakewa) wraps a real client whose socket is
// replaced, so events still travel through whatsmeow's own dispatcher and QR channel.
type Client interface {
	AddEventHandlerWithSuccessStatus(handler whatsmeow.EventHandlerWithSuccessStatus) uint32
	GetQRChannel(ctx context.Context) (<-chan whatsmeow.QRChannelItem, error)
	Connect() error
	Disconnect()
	Logout(ctx context.Context) error
	IsLoggedIn() bool
	SendMessage(ctx context.Context, to types.JID, message *waE2E.Message, extra ...whatsmeow.SendRequestExtra) (whatsmeow.SendResponse, error)
	Upload(ctx context.Context, plaintext []byte, appInfo whatsmeow.MediaType) (whatsmeow.UploadResponse, error)
	Download(ctx context.Context, msg whatsmeow.DownloadableMessage) ([]byte, error)
	RejectCall(ctx context.Context, callFrom types.JID, callID string) error
	GenerateMessageID() types.MessageID
}

var _ Client = (*whatsmeow.Client)(nil)

// NewClientFunc builds the client of a device.
type NewClientFunc func(dev *store.Device, log waLog.Logger) (Client, error)
