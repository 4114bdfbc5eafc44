package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types"

	"atende/engine"
)

// GroupClient is the part of *whatsmeow.Client that creates groups (the /Groups
// batches, docs/groups.md). It is apart from Client so that a client without it (a
// test double) answers ErrGroupsNotSupported rather than failing to build.
type GroupClient interface {
	CreateGroup(ctx context.Context, req whatsmeow.ReqCreateGroup) (*types.GroupInfo, error)
	GetJoinedGroups(ctx context.Context) ([]*types.GroupInfo, error)
	UpdateGroupParticipants(ctx context.Context, jid types.JID, changes []types.JID, action whatsmeow.ParticipantChange) ([]types.GroupParticipant, error)
	SetGroupPhoto(ctx context.Context, jid types.JID, avatar []byte) (string, error)
	GetGroupInviteLink(ctx context.Context, jid types.JID, reset bool) (string, error)
}

var (
	_ GroupClient         = (*whatsmeow.Client)(nil)
	_ engine.GroupCreator = (*Channel)(nil)
)

// maxGroupPhoto caps the group picture read from the media store: WhatsApp keeps
// group pictures small (640 px), a few hundred kilobytes at most.
const maxGroupPhoto = 5 << 20

// CreateGroup implements engine.GroupCreator: it creates the group req.Name with the
// admins as participants, promotes them, sets the picture and reads the invite link.
// Every step after the create is idempotent, and the create itself is made so:
//
//   - req.Key goes as WhatsApp's create key, which identifies the creation;
//   - when req.Resume (an earlier attempt may have created the group before the
//     outcome was recorded) the groups the account is in are read first, and one
//     this account created under req.Name is taken instead of creating another.
//
// Refusals are catalogue errors the batch records (ERR_WAPP_INVALID_CONTACT for an
// admin that is not a number); anything else is temporary (ErrUnavailable).
func (c *Channel) CreateGroup(ctx context.Context, companyID engine.ID, req engine.GroupRequest) (engine.GroupResult, error) {
	cli := c.currentClient()
	if cli == nil || !cli.IsLoggedIn() {
		return engine.GroupResult{}, engine.Wrap(engine.ErrUnavailable, errors.New("whatsapp: not connected"))
	}
	gc, ok := cli.(GroupClient)
	if !ok {
		return engine.GroupResult{}, engine.E(engine.ErrGroupsNotSupported)
	}
	admins := make([]types.JID, 0, len(req.Admins))
	for _, n := range req.Admins {
		jid, ok := jidFor(n)
		if !ok || jid.Server != types.DefaultUserServer {
			return engine.GroupResult{}, &engine.Error{Code: engine.ErrWappInvalidContact, Cause: fmt.Errorf("admin %q", n)}
		}
		admins = append(admins, jid)
	}
	photo, err := c.groupPhoto(ctx, companyID, req)
	if err != nil {
		return engine.GroupResult{}, err
	}
	var info *types.GroupInfo
	if req.Resume {
		if info, err = c.findGroup(ctx, gc, req.Name); err != nil {
			return engine.GroupResult{}, temporary("list groups", err)
		}
	}
	if info == nil {
		info, err = gc.CreateGroup(ctx, whatsmeow.ReqCreateGroup{Name: req.Name, Participants: admins, CreateKey: types.MessageID(req.Key)})
		if err != nil {
			return engine.GroupResult{}, temporary("create group", err)
		}
	}
	changed, err := gc.UpdateGroupParticipants(ctx, info.JID, admins, whatsmeow.ParticipantChangePromote)
	if err != nil {
		return engine.GroupResult{}, temporary("promote admins", err)
	}
	for _, p := range changed {
		if p.Error != 0 {
			return engine.GroupResult{}, &engine.Error{Code: engine.ErrWappInvalidContact,
				Cause: fmt.Errorf("promote %s: error %d", p.JID.User, p.Error)}
		}
	}
	if _, err := gc.SetGroupPhoto(ctx, info.JID, photo); err != nil {
		if errors.Is(err, whatsmeow.ErrInvalidImageFormat) {
			return engine.GroupResult{}, &engine.Error{Code: engine.ErrMediaTypeNotAllowed, Cause: err}
		}
		return engine.GroupResult{}, temporary("set group picture", err)
	}
	link, err := gc.GetGroupInviteLink(ctx, info.JID, false)
	if err != nil {
		return engine.GroupResult{}, temporary("read invite link", err)
	}
	n := len(info.Participants)
	if info.ParticipantCount > n {
		n = info.ParticipantCount
	}
	return engine.GroupResult{JID: info.JID.String(), InviteLink: link, Participants: n}, nil
}

// findGroup is the group this account created under name, nil if none.
func (c *Channel) findGroup(ctx context.Context, gc GroupClient, name string) (*types.GroupInfo, error) {
	groups, err := gc.GetJoinedGroups(ctx)
	if err != nil {
		return nil, err
	}
	own := c.ownNumber()
	for _, g := range groups {
		if g.Name == name && (g.OwnerJID.User == own || g.OwnerJID.IsEmpty()) {
			return g, nil
		}
	}
	return nil, nil
}

// groupPhoto reads the batch's picture from the media store.
func (c *Channel) groupPhoto(ctx context.Context, companyID engine.ID, req engine.GroupRequest) ([]byte, error) {
	if req.MediaPath == "" {
		return nil, nil
	}
	if c.f.cfg.Media == nil {
		return nil, engine.Wrap(engine.ErrUnavailable, errors.New("whatsapp: no media store"))
	}
	r, _, err := c.f.cfg.Media.Open(ctx, companyID, req.MediaPath)
	if err != nil {
		return nil, &engine.Error{Code: engine.ErrNotFound, Cause: fmt.Errorf("open group picture: %w", err)}
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, maxGroupPhoto+1))
	if err != nil {
		return nil, engine.Wrap(engine.ErrUnavailable, err)
	}
	if len(data) > maxGroupPhoto {
		return nil, engine.E(engine.ErrMediaTooLarge)
	}
	return data, nil
}

// temporary wraps a failure the batch retries (the socket dropped, WhatsApp timed
// out).
func temporary(what string, err error) error {
	return engine.Wrap(engine.ErrUnavailable, fmt.Errorf("whatsapp: %s: %w", what, err))
}
