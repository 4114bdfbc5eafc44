package whatsapp

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/store/sqlstore"
	"go.mau.fi/whatsmeow/types"
	waLog "go.mau.fi/whatsmeow/util/log"

	"atende/engine"
)

// Devices keeps the WhatsApp devices (keys and sessions, in whatsmeow's own tables)
// of every connection in our database, one device per connection, and the id
// generated for each outbound message.
type Devices struct {
	// static after OpenDevices
	db        *sql.DB
	container *sqlstore.Container
}

// OpenDevices wraps our database (persistence/db: dialect "sqlite" for modernc's
// driver, "postgres" for pgx's stdlib) in whatsmeow's sqlstore and runs its schema
// upgrade (idempotent; every node runs it at start). dbutil parses any dialect name
// starting with "sqlite" or "postgres", so ours pass as they are. The tables of this
// package (whatsapp_devices, whatsapp_sent) come from our migrations 0330.
func OpenDevices(ctx context.Context, sqlDB *sql.DB, dialect string, log waLog.Logger) (*Devices, error) {
	c := sqlstore.NewWithDB(sqlDB, dialect, log)
	if err := c.Upgrade(ctx); err != nil {
		return nil, fmt.Errorf("whatsapp: upgrade device store: %w", err)
	}
	return &Devices{db: sqlDB, container: c}, nil
}

// Container is whatsmeow's device container (for tests and the fake pairing flow).
func (s *Devices) Container() *sqlstore.Container { return s.container }

// Load returns the device of a connection: the paired one, or a fresh unpaired device
// (ID nil) when the connection has none or its device vanished.
func (s *Devices) Load(ctx context.Context, connID engine.ID) (*store.Device, error) {
	jid, err := s.Bound(ctx, connID)
	if err != nil {
		return nil, err
	}
	if jid.IsEmpty() {
		return s.container.NewDevice(), nil
	}
	dev, err := s.container.GetDevice(ctx, jid)
	if err != nil {
		return nil, fmt.Errorf("whatsapp: load device %s: %w", jid, err)
	}
	if dev == nil {
		return s.container.NewDevice(), nil
	}
	return dev, nil
}

// Bind records that connID's device is jid (after a pairing).
func (s *Devices) Bind(ctx context.Context, connID engine.ID, jid types.JID) error {
	now := time.Now().UnixMicro()
	_, err := s.db.ExecContext(ctx, `INSERT INTO whatsapp_devices (connection_id, jid, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (connection_id) DO UPDATE SET jid = excluded.jid, updated_at = excluded.updated_at`, int64(connID), jid.String(), now)
	if err != nil {
		return fmt.Errorf("whatsapp: bind device of connection %d: %w", connID, err)
	}
	return nil
}

// Bound is the JID of connID's device, or the empty JID.
func (s *Devices) Bound(ctx context.Context, connID engine.ID) (types.JID, error) {
	var raw string
	err := s.db.QueryRowContext(ctx, `SELECT jid FROM whatsapp_devices WHERE connection_id = $1`, int64(connID)).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return types.EmptyJID, nil
	}
	if err != nil {
		return types.EmptyJID, fmt.Errorf("whatsapp: device of connection %d: %w", connID, err)
	}
	jid, _ := types.ParseJID(raw)
	return jid, nil
}

// Forget deletes connID's device (keys, sessions, contacts: whatsmeow's rows cascade
// from whatsmeow_device) and its mapping. dev may be nil.
func (s *Devices) Forget(ctx context.Context, connID engine.ID, dev *store.Device) error {
	jid, err := s.Bound(ctx, connID)
	if err != nil {
		return err
	}
	if dev == nil && !jid.IsEmpty() {
		if dev, err = s.container.GetDevice(ctx, jid); err != nil {
			return fmt.Errorf("whatsapp: load device %s: %w", jid, err)
		}
	}
	if dev != nil && dev.ID != nil {
		if err := s.container.DeleteDevice(ctx, dev); err != nil && !errors.Is(err, sqlstore.ErrDeviceIDMustBeSet) {
			return fmt.Errorf("whatsapp: delete device %s: %w", dev.ID, err)
		}
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM whatsapp_devices WHERE connection_id = $1`, int64(connID)); err != nil {
		return fmt.Errorf("whatsapp: forget device of connection %d: %w", connID, err)
	}
	return nil
}

// SentID returns the WhatsApp id of our message msgID on connID, recording generate()
// as that id on first use: every attempt to send one message uses one id.
func (s *Devices) SentID(ctx context.Context, connID, msgID engine.ID, generate func() string) (string, error) {
	if msgID <= 0 {
		return generate(), nil
	}
	// One statement: the row's id, the new one or the one an earlier attempt recorded.
	var id string
	err := s.db.QueryRowContext(ctx, `INSERT INTO whatsapp_sent (connection_id, message_id, wa_id, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (connection_id, message_id) DO UPDATE SET wa_id = whatsapp_sent.wa_id RETURNING wa_id`,
		int64(connID), int64(msgID), generate(), time.Now().UnixMicro()).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("whatsapp: record id of message %d: %w", msgID, err)
	}
	return id, nil
}
