package node

import (
	"context"

	"atende/engine"
	"atende/transport/call"
	httpapi "atende/transport/http"
)

// startCalls makes the video call tokens and signalling relay of this node: tokens
// signed with a key derived from JWT_SECRET (the same on every node), the ICE
// servers of the configuration, and in a cluster the Redis topic "calls" as the
// relay's bus, so the two parties of a call may sit on different nodes.
func (n *Node) startCalls(ctx context.Context, l *live) error {
	var err error
	if l.callTokens, err = call.NewTokens(derive(n.cfg.JWTSecret, "call"), nil); err != nil {
		return err
	}
	var ice []call.ICEServer
	if len(n.cfg.CallSTUNURLs) > 0 {
		ice = append(ice, call.ICEServer{URLs: n.cfg.CallSTUNURLs})
	}
	if len(n.cfg.CallTURNURLs) > 0 {
		ice = append(ice, call.ICEServer{URLs: n.cfg.CallTURNURLs, Username: n.cfg.CallTURNUsername, Credential: n.cfg.CallTURNCredential})
	}
	cfg := call.Config{Tokens: l.callTokens, ICEServers: ice, Logger: n.log.With().Str("component", "call").Logger()}
	if !n.cfg.Cluster {
		l.calls, err = call.NewRelay(cfg)
		return err
	}
	topic := n.redis.Topic("calls")
	cfg.Bus = topic
	if l.calls, err = call.NewRelay(cfg); err != nil {
		return err
	}
	cancel, err := topic.Subscribe(ctx, l.calls.Deliver)
	if err != nil {
		return err
	}
	n.onClose(func(context.Context) error { cancel(); return nil })
	return nil
}

// callInvites starts video calls for the REST API (httpapi.VideoCalls).
type callInvites struct {
	live *live
	node *Node
}

func (c callInvites) Invite(tenant, ticket, user engine.ID) (httpapi.VideoCallInvite, error) {
	inv, err := c.live.callTokens.Issue(tenant, ticket, user, c.node.cfg.CallLinkTTL)
	if err != nil {
		return httpapi.VideoCallInvite{}, err
	}
	return httpapi.VideoCallInvite{CallID: inv.Call, CustomerToken: inv.Customer, AttendantToken: inv.Attendant,
		ExpiresAt: inv.ExpiresAt}, nil
}
