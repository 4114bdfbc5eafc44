package actors

import (
	"testing"

	"atende/engine"
)

func TestOutboundAdmitsEachMessageOnceUntilForgotten(t *testing.T) {
	o := newOutbound(10, 10)
	if !o.admit(7) {
		t.Fatal("first hand-over of message 7 refused")
	}
	if o.admit(7) {
		t.Fatal("message 7 admitted twice in one activation")
	}
	if !o.admit(8) {
		t.Fatal("another message refused")
	}
	o.forget(7)
	if !o.admit(7) {
		t.Fatal("message 7 refused after its send gave up")
	}
}

// Settled ids are refused while they are among the last ones settled, then forgotten,
// so the record stays bounded however many messages an activation sends; an id in
// flight is refused however many settle after it.
func TestOutboundForgetsOldSettledSendsOnly(t *testing.T) {
	const kept = 4
	o := newOutbound(10, kept)
	if !o.admit(1) {
		t.Fatal("message 1 refused")
	}
	for id := engine.ID(100); id < 100+10*kept; id++ {
		if !o.admit(id) {
			t.Fatalf("message %d refused", id)
		}
		o.settle(id)
		if o.admit(id) {
			t.Fatalf("message %d admitted again right after it settled", id)
		}
		if n := o.settled.len(); n > 2*kept {
			t.Fatalf("%d settled ids kept, want at most %d", n, 2*kept)
		}
	}
	if o.admit(1) {
		t.Fatal("message 1, still in flight, admitted again")
	}
	if !o.admit(100) {
		t.Fatal("the first settled message is still refused after 40 more settled")
	}
	o.settle(1)
	if o.admit(1) || len(o.sending) != 1 {
		t.Fatalf("after settling 1: admitted again, or %d in flight (want only 100)", len(o.sending))
	}
}

// Sends to one recipient go one at a time in the order they were handed over; other
// recipients' lanes are independent; a lane emptied is free again.
func TestOutboundLanesKeepEachRecipientsOrder(t *testing.T) {
	o := newOutbound(10, 10)
	send := func(id engine.ID) queuedSend { return queuedSend{req: DeliverRequest{MessageID: id}} }
	if !o.enter("ana", send(1)) {
		t.Fatal("the first send to a free lane must start")
	}
	for _, id := range []engine.ID{2, 3} {
		if o.enter("ana", send(id)) {
			t.Fatalf("send %d started beside the one in flight", id)
		}
	}
	if !o.enter("bia", send(10)) {
		t.Fatal("another recipient's send waited for ana's lane")
	}
	var order []engine.ID
	for {
		next, ok := o.next("ana")
		if !ok {
			break
		}
		order = append(order, next.req.MessageID)
	}
	if len(order) != 2 || order[0] != 2 || order[1] != 3 {
		t.Fatalf("ana's lane handed over %v, want [2 3]", order)
	}
	if _, busy := o.lanes["ana"]; busy {
		t.Fatal("ana's emptied lane is still held")
	}
	if !o.enter("ana", send(4)) {
		t.Fatal("a send to a freed lane must start")
	}
	if _, ok := o.next("bia"); ok {
		t.Fatal("bia's lane had nothing waiting")
	}
	if _, busy := o.lanes["bia"]; busy {
		t.Fatal("bia's lane is still held after its only send")
	}
}

func TestOutboundIndexKeepsTheNewest(t *testing.T) {
	x := newOutboundIndex(2)
	x.add("", outRef{ticket: 1, message: 99}) // no provider id: nothing to index
	x.add("p1", outRef{ticket: 1, message: 11})
	x.add("p2", outRef{ticket: 1, message: 12})
	x.add("p1", outRef{ticket: 1, message: 11}) // again: still one entry
	x.add("p3", outRef{ticket: 2, message: 13})
	if _, ok := x.get("p1"); ok || x.providerOf(11) != "" {
		t.Fatal("the oldest entry survived past the bound")
	}
	if r, ok := x.get("p3"); !ok || r.ticket != 2 || r.message != 13 {
		t.Fatalf("p3 -> %+v, %v", r, ok)
	}
	if x.messageOf("p2") != 12 || x.providerOf(12) != "p2" || x.providerOf(99) != "" {
		t.Fatal("the index does not map both ways")
	}
	if x.messageOf("") != 0 || x.providerOf(0) != "" {
		t.Fatal("empty ids must map to nothing")
	}
}

// A campaign message id goes to the channel once: again while in flight it is
// refused for a later try, again once taken it answers the same provider id; a send
// that was not taken may go again.
func TestOutboundCampaignMessageIDIsItsIdempotencyKey(t *testing.T) {
	o := newOutbound(10, 10)
	if _, v := o.admitCampaign(5); v != campaignSendNow {
		t.Fatalf("first send of 5: %v", v)
	}
	if _, v := o.admitCampaign(5); v != campaignInFlight {
		t.Fatalf("5 again while in flight: %v", v)
	}
	o.settleCampaign(5, "", false)
	if _, v := o.admitCampaign(5); v != campaignSendNow {
		t.Fatalf("5 after a send the channel did not take: %v", v)
	}
	o.settleCampaign(5, "wamid.5", true)
	if pid, v := o.admitCampaign(5); v != campaignTakenYet || pid != "wamid.5" {
		t.Fatalf("5 after the channel took it: %q %v", pid, v)
	}
	if _, v := o.admitCampaign(6); v != campaignSendNow {
		t.Fatalf("another message: %v", v)
	}
}
