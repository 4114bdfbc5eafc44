package actors

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"atende/actors/wire"
	"atende/engine"
)

// CmdConnectionGroup creates one group of a /Groups batch (an engine.GroupRequest) on
// the connection's channel and answers the engine.GroupResult, or the channel's
// refusal: ERR_GROUPS_NOT_SUPPORTED from a channel that cannot create groups,
// ERR_UNAVAILABLE while it is not running. The batch (persistence/groups) records
// the outcome; the request's key makes a retry answer the same group.
const CmdConnectionGroup = "connection.group"

// groupDone is the outcome of one group creation, back from its goroutine.
type groupDone struct {
	res engine.GroupResult
	err error
}

// createGroup hands req to the channel in a tracked goroutine (a creation is four
// round trips to WhatsApp; the actor keeps serving meanwhile) and answers the caller
// when the channel is done.
func (a *connActor) createGroup(ctx actor.Context, req engine.GroupRequest) {
	if a.channel == nil || !a.started {
		ctx.Respond(ErrorReply(engine.Wrap(engine.ErrUnavailable, fmt.Errorf("connection %d: channel not running", a.id))))
		return
	}
	gc, ok := a.channel.(engine.GroupCreator)
	if !ok {
		ctx.Respond(ErrorReply(engine.E(engine.ErrGroupsNotSupported)))
		return
	}
	companyID, timeout := a.conn.CompanyID, a.cfg.CallTimeout
	offActor(ctx, a.cfg.Routines, 4*timeout, func() groupDone {
		gctx, cancel := context.WithTimeout(context.Background(), 4*timeout)
		defer cancel()
		var done groupDone
		done.res, done.err = gc.CreateGroup(gctx, companyID, req)
		return done
	}, func(d groupDone, err error) {
		switch {
		case err != nil:
			ctx.Respond(ErrorReply(err))
		case d.err != nil:
			ctx.Respond(ErrorReply(keepCode(d.err, engine.ErrUnavailable)))
		default:
			ctx.Respond(a.okReply(d.res))
		}
	})
}

// CreateGroup implements engine.GroupMaker: the creation goes to the actor of
// connectionID wherever the cluster placed it; a connection of another tenant
// answers ErrNoWappFound.
func (c Connections) CreateGroup(ctx context.Context, companyID, connectionID engine.ID, req engine.GroupRequest) (engine.GroupResult, error) {
	var res engine.GroupResult
	err := c.call(ctx, connectionID, companyID, CmdConnectionGroup, req, &res)
	return res, err
}

var _ engine.GroupMaker = Connections{}

func decodeGroup(cmd *wire.Command) (engine.GroupRequest, error) {
	var req engine.GroupRequest
	if err := json.Unmarshal(cmd.Payload, &req); err != nil {
		return req, engine.Wrap(engine.ErrInvalidJSON, err)
	}
	if req.Key == "" || req.Name == "" {
		return req, engine.E(engine.ErrValidation)
	}
	return req, nil
}
