package meta

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/channel/cloud"
	"atende/transport/jsonapi"
)

// Starter (re)starts a connection's actor (actors.Connections).
type Starter = cloud.Starter

// UpsertDeps are what Upsert needs.
type UpsertDeps struct {
	Connections engine.ConnectionStore
	Credentials engine.CredentialStore
	Starter     Starter
	Publisher   jsonapi.Publisher // announces a new connection; nil announces nothing
	Logger      zerolog.Logger
}

// Upsert stores cred (whose ConnectionID it fills) on the tenant's connection that the
// provider's id already routes to — renewed credentials — or on a new connection made
// of in; then it starts the connection's actor. Another tenant holding the provider's
// id is ERR_VALIDATION on field "externalId" ('Already registered'). A new connection
// whose credentials cannot be stored is removed again.
func Upsert(ctx context.Context, d UpsertDeps, companyID engine.ID, cred engine.ChannelCredentials, in engine.ConnectionInput) (engine.Connection, error) {
	cred.CompanyID = companyID
	prev, err := d.Credentials.ByExternal(ctx, cred.Provider, cred.ExternalID)
	switch {
	case err == nil && prev.CompanyID != companyID:
		return engine.Connection{}, &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"externalId": "Already registered"}}
	case err == nil:
		cred.ConnectionID = prev.ConnectionID
		if err := d.Credentials.Put(ctx, cred); err != nil {
			return engine.Connection{}, err
		}
		conn, err := d.Connections.Get(ctx, companyID, prev.ConnectionID)
		if err != nil {
			return engine.Connection{}, err
		}
		if d.Starter != nil {
			if err := d.Starter.Restart(ctx, conn.ID); err != nil {
				d.Logger.Warn().Err(err).Int64("conn_id", conn.ID).Msg("restart connection with renewed credentials")
			}
		}
		return conn, nil
	case engine.CodeOf(err) != engine.ErrNotFound:
		return engine.Connection{}, err
	}
	conn, err := d.Connections.Create(ctx, companyID, in)
	if err != nil {
		return engine.Connection{}, err
	}
	cred.ConnectionID = conn.ID
	if err := d.Credentials.Put(ctx, cred); err != nil {
		if derr := d.Connections.Delete(ctx, companyID, conn.ID); derr != nil {
			d.Logger.Error().Err(derr).Int64("conn_id", conn.ID).Msg("remove connection without credentials")
		}
		if errors.Is(err, engine.ErrCredentialsTaken) {
			return engine.Connection{}, &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"externalId": "Already registered"}}
		}
		return engine.Connection{}, fmt.Errorf("store credentials: %w", err)
	}
	if d.Publisher != nil {
		d.Publisher.Publish(companyID, "whatsapp", jsonapi.ConnectionCreated(conn))
	}
	restart(ctx, d, conn.ID)
	return conn, nil
}

// restart starts the actor of a connection (its channel reads the new credentials);
// a failure is logged: the connection exists and its status tells the story.
func restart(ctx context.Context, d UpsertDeps, id engine.ID) {
	if d.Starter == nil {
		return
	}
	if _, err := d.Starter.Start(ctx, id); err != nil {
		d.Logger.Warn().Err(err).Int64("conn_id", id).Msg("start connection")
	}
}
