package actors

import "atende/engine"

// outbound is a connection activation's record of what it hands to its channel,
// kept apart from the actor's effects (goroutines, timers, ticket commands) so that
// its rules hold, and are tested, on their own:
//
//   - each message id is handed over once per activation (admit), unless a send gives
//     up, after which a later delivery may try it again (forget). An id stays
//     refused while its send is in flight and, once settled (sent or failed for
//     good, settle), among the last settledKept settled ids: a repeat comes from
//     the outbox, which reads the read model and may list a message for as long as
//     the projection has not applied its receipt or failure — seconds, while the
//     bound is a hundred thousand sends;
//   - sends to one recipient go one at a time, in the order they were handed over:
//     the recipient's lane (enter, next). A reply never overtakes the message before
//     it, not even while that message waits to be retried;
//   - provider ids of sent messages map to our messages and back (index), for
//     receipts, revokes and quoted replies;
//   - a campaign's message id is its idempotency key (admitCampaign, settleCampaign):
//     asked again once the channel took it, it answers the same provider id without a
//     second send; asked while in flight, it is refused for a later try. Campaign
//     messages take their recipient's lane like a ticket's, so a campaign message and
//     a conversation's messages to one customer never overtake each other.
type outbound struct {
	sending map[engine.ID]struct{}       // message ids handed over, not settled yet
	settled *recent[engine.ID, struct{}] // the message ids settled lately
	lanes   map[string][]queuedSend      // recipients with a send in flight -> the sends waiting behind it
	index   *outboundIndex
	// campaignTaken: campaign message ids the channel took -> provider id (at most
	// campaignTakenMax; past it they are forgotten, and the channel's idempotency or
	// the recorded attempts cover a repeat); campaignBusy: those in flight.
	campaignTaken map[engine.ID]string
	campaignBusy  map[engine.ID]bool
}

// queuedSend is a send waiting in its recipient's lane: a ticket's message (req), or
// a campaign's (campaign set).
type queuedSend struct {
	req      DeliverRequest
	attempt  int
	campaign *campaignJob
}

// campaignTakenMax bounds the campaign message ids an activation remembers.
const campaignTakenMax = 200_000

// campaignVerdict is admitCampaign's answer.
type campaignVerdict int

const (
	campaignSendNow  campaignVerdict = iota // admitted: send it, then settleCampaign
	campaignTakenYet                        // the channel took it already: answer its provider id
	campaignInFlight                        // a send of it is in flight: try again later
)

// outboundIndexSize is how many sent messages' provider ids an activation keeps in
// memory; older ones are found through the locator. settledKept is how many settled
// message ids it keeps refusing (between settledKept and twice as many: recent).
const (
	outboundIndexSize = 100_000
	settledKept       = 100_000
)

func newOutbound(indexSize, settledMax int) outbound {
	return outbound{sending: map[engine.ID]struct{}{}, settled: newRecent[engine.ID, struct{}](settledMax),
		lanes: map[string][]queuedSend{}, index: newOutboundIndex(indexSize),
		campaignTaken: map[engine.ID]string{}, campaignBusy: map[engine.ID]bool{}}
}

// admitCampaign decides whether campaign message id may go to the channel now; with
// campaignTakenYet it returns the provider id the channel gave it.
func (o outbound) admitCampaign(id engine.ID) (string, campaignVerdict) {
	if pid, ok := o.campaignTaken[id]; ok {
		return pid, campaignTakenYet
	}
	if o.campaignBusy[id] {
		return "", campaignInFlight
	}
	o.campaignBusy[id] = true
	return "", campaignSendNow
}

// settleCampaign ends the send of campaign message id: taken by the channel with
// providerID, or not (taken false), after which it may be sent again.
func (o outbound) settleCampaign(id engine.ID, providerID string, taken bool) {
	delete(o.campaignBusy, id)
	if !taken {
		return
	}
	if len(o.campaignTaken) >= campaignTakenMax {
		clear(o.campaignTaken)
	}
	o.campaignTaken[id] = providerID
}

// admit reports whether message id may be handed over now: false when this
// activation already did (in flight, or settled lately).
func (o outbound) admit(id engine.ID) bool {
	if _, busy := o.sending[id]; busy || o.settled.has(id) {
		return false
	}
	o.sending[id] = struct{}{}
	return true
}

// forget lets message id be handed over again: its send gave up.
func (o outbound) forget(id engine.ID) { delete(o.sending, id) }

// settle ends message id's send for good: the channel took it, or refused it and the
// message failed. It is refused while it is among the ids settled lately.
func (o outbound) settle(id engine.ID) {
	delete(o.sending, id)
	o.settled.set(id, struct{}{})
}

// enter puts s in recipient to's lane and reports whether it may start now: true
// when the lane was free (s now holds it), false when s waits behind the send in
// flight.
func (o outbound) enter(to string, s queuedSend) bool {
	if waiting, busy := o.lanes[to]; busy {
		o.lanes[to] = append(waiting, s)
		return false
	}
	o.lanes[to] = nil
	return true
}

// next is called when the send holding recipient to's lane is done: it hands the
// lane to the send waiting first, or frees the lane (ok false).
func (o outbound) next(to string) (s queuedSend, ok bool) {
	waiting := o.lanes[to]
	if len(waiting) == 0 {
		delete(o.lanes, to)
		return queuedSend{}, false
	}
	o.lanes[to] = waiting[1:]
	return waiting[0], true
}

// outboundIndex maps provider ids of sent messages to our messages (for receipts
// and quoted replies) and back, keeping the newest max entries.
type outboundIndex struct {
	max    int
	byProv map[string]outRef
	byMsg  map[engine.ID]string
	order  []string
}

func newOutboundIndex(max int) *outboundIndex {
	return &outboundIndex{max: max, byProv: map[string]outRef{}, byMsg: map[engine.ID]string{}}
}

func (x *outboundIndex) add(providerID string, ref outRef) {
	if providerID == "" {
		return
	}
	if _, ok := x.byProv[providerID]; !ok {
		x.order = append(x.order, providerID)
	}
	x.byProv[providerID] = ref
	x.byMsg[ref.message] = providerID
	for len(x.order) > x.max {
		old := x.order[0]
		x.order = x.order[1:]
		delete(x.byMsg, x.byProv[old].message)
		delete(x.byProv, old)
	}
}

func (x *outboundIndex) get(providerID string) (outRef, bool) {
	r, ok := x.byProv[providerID]
	return r, ok
}

func (x *outboundIndex) messageOf(providerID string) engine.ID {
	if providerID == "" {
		return 0
	}
	return x.byProv[providerID].message
}

func (x *outboundIndex) providerOf(messageID engine.ID) string {
	if messageID == 0 {
		return ""
	}
	return x.byMsg[messageID]
}
