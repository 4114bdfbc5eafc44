package fakewa

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	waBinary "go.mau.fi/whatsmeow/binary"
	"go.mau.fi/whatsmeow/types"
)

// The server's groups: it answers the group IQs whatsmeow sends, in WhatsApp's wire
// format, so the adapter's real group calls run against it:
//
//   - create: <iq xmlns="w:g2" type="set" to="g.us"><create subject key><participant jid/>…
//     → <group id subject creation creator size><participant jid type/>…</group>.
//     A create key seen before answers the group it created (the key deduplicates);
//   - participating (GetJoinedGroups): <iq xmlns="w:g2" type="get" to="g.us"><participating/>
//     → <groups><group …/>…</groups>, the groups the logged-in account is in;
//   - promote / demote: <iq xmlns="w:g2" type="set" to="<group>"><promote><participant jid/>…
//     → <promote><participant jid type="admin"/>…</promote>; 404 for an unknown group,
//     and error="404" on a participant who is not in the group;
//   - picture: <iq xmlns="w:profile:picture" type="set" to="s.whatsapp.net" target="<group>">
//     <picture type="image">JPEG</picture> → <picture id/>; 406 if the bytes are not a JPEG;
//   - invite: <iq xmlns="w:g2" type="get" to="<group>"><invite/> → <invite code/>.

// FakeGroup is a group the server created, as its control API lists it.
type FakeGroup struct {
	ID           string          `json:"id"` // the user part of the group JID (…@g.us)
	Subject      string          `json:"subject"`
	Creator      string          `json:"creator"` // the creating account's phone number
	Key          string          `json:"key"`
	Participants map[string]bool `json:"participants"` // phone number → admin
	Picture      int             `json:"picture"`      // bytes of the current picture
	Invite       string          `json:"invite"`
	Created      int64           `json:"created"`
}

// groupBook is the server's groups, guarded by its own mutex (the session readers of
// every client use it).
type groupBook struct {
	mu     sync.Mutex            // guards the fields below
	byID   map[string]*FakeGroup // group id → group
	byKey  map[string]string     // creator + create key → group id
	nextID int64
}

func (b *groupBook) init() {
	if b.byID == nil {
		b.byID, b.byKey, b.nextID = map[string]*FakeGroup{}, map[string]string{}, time.Now().Unix()
	}
}

// Groups lists the groups the server created, oldest first.
func (s *Server) Groups() []FakeGroup {
	b := &s.groups
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]FakeGroup, 0, len(b.byID))
	for _, g := range b.byID {
		c := *g
		c.Participants = make(map[string]bool, len(g.Participants))
		for k, v := range g.Participants {
			c.Participants[k] = v
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (s *Server) serveGroups(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.Groups())
}

// groupNode is g in WhatsApp's <group> form.
func groupNode(g *FakeGroup) waBinary.Node {
	nums := make([]string, 0, len(g.Participants))
	for n := range g.Participants {
		nums = append(nums, n)
	}
	sort.Strings(nums)
	parts := make([]waBinary.Node, 0, len(nums))
	for _, n := range nums {
		a := waBinary.Attrs{"jid": types.NewJID(n, types.DefaultUserServer)}
		switch {
		case n == g.Creator:
			a["type"] = "superadmin"
		case g.Participants[n]:
			a["type"] = "admin"
		}
		parts = append(parts, waBinary.Node{Tag: "participant", Attrs: a})
	}
	return waBinary.Node{Tag: "group", Attrs: waBinary.Attrs{
		"id": g.ID, "subject": g.Subject, "s_t": fmt.Sprint(g.Created), "creation": fmt.Sprint(g.Created),
		"creator": types.NewJID(g.Creator, types.DefaultUserServer), "size": fmt.Sprint(len(g.Participants)),
	}, Content: parts}
}

// iqTexts are WhatsApp's texts of the IQ error codes the fake answers.
var iqTexts = map[int]string{http.StatusBadRequest: "bad-request", http.StatusForbidden: "forbidden",
	http.StatusNotFound: "item-not-found", http.StatusNotAcceptable: "not-acceptable", http.StatusNotImplemented: "feature-not-implemented"}

// iqError is an IQ error answer with code, as WhatsApp writes it.
func iqError(code int) waBinary.Node {
	return waBinary.Node{Tag: "error", Attrs: waBinary.Attrs{"code": fmt.Sprint(code), "text": iqTexts[code]}}
}

// answerGroupIQ answers node if it is a group IQ: the answer's type and content. ok is
// false for every other IQ.
func (ss *session) answerGroupIQ(node waBinary.Node) (typ string, content []waBinary.Node, ok bool) {
	xmlns, _ := node.Attrs["xmlns"].(string)
	if xmlns != "w:g2" && xmlns != "w:profile:picture" {
		return "", nil, false
	}
	ag := node.AttrGetter()
	to := ag.OptionalJIDOrEmpty("to")
	b := &ss.s.groups
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	if xmlns == "w:profile:picture" {
		g := b.byID[ag.OptionalJIDOrEmpty("target").User]
		pic, _ := node.GetOptionalChildByTag("picture")
		data, _ := pic.Content.([]byte)
		switch {
		case g == nil || !g.Participants[ss.user]:
			return "error", []waBinary.Node{iqError(http.StatusNotFound)}, true
		case len(data) < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF: // not a JPEG
			return "error", []waBinary.Node{iqError(http.StatusNotAcceptable)}, true
		}
		g.Picture = len(data)
		return "result", []waBinary.Node{{Tag: "picture", Attrs: waBinary.Attrs{"id": fmt.Sprint(time.Now().UnixNano())}}}, true
	}
	children := node.GetChildren()
	if len(children) != 1 {
		return "error", []waBinary.Node{iqError(http.StatusBadRequest)}, true
	}
	req := children[0]
	switch req.Tag {
	case "create":
		rag := req.AttrGetter()
		key := ss.user + "/" + rag.OptionalString("key")
		if id, seen := b.byKey[key]; seen && rag.OptionalString("key") != "" {
			return "result", []waBinary.Node{groupNode(b.byID[id])}, true
		}
		b.nextID++
		g := &FakeGroup{ID: fmt.Sprintf("1203630%013d", b.nextID), Subject: rag.OptionalString("subject"), Creator: ss.user,
			Key: rag.OptionalString("key"), Participants: map[string]bool{ss.user: true}, Created: time.Now().Unix()}
		for _, p := range req.GetChildrenByTag("participant") {
			g.Participants[p.AttrGetter().JID("jid").User] = false
		}
		b.byID[g.ID], b.byKey[key] = g, g.ID
		return "result", []waBinary.Node{groupNode(g)}, true
	case "participating":
		var list []waBinary.Node
		ids := make([]string, 0, len(b.byID))
		for id := range b.byID {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			if g := b.byID[id]; g.Participants[ss.user] || g.Creator == ss.user {
				list = append(list, groupNode(g))
			}
		}
		return "result", []waBinary.Node{{Tag: "groups", Content: list}}, true
	}
	g := b.byID[to.User]
	if to.Server != types.GroupServer || g == nil {
		return "error", []waBinary.Node{iqError(http.StatusNotFound)}, true
	}
	if !g.Participants[ss.user] { // only admins change a group or read its link
		return "error", []waBinary.Node{iqError(http.StatusForbidden)}, true
	}
	switch req.Tag {
	case "promote", "demote":
		var out []waBinary.Node
		for _, p := range req.GetChildrenByTag("participant") {
			jid := p.AttrGetter().JID("jid")
			a := waBinary.Attrs{"jid": jid}
			if _, in := g.Participants[jid.User]; !in {
				a["error"] = "404"
			} else if jid.User != g.Creator {
				g.Participants[jid.User] = req.Tag == "promote"
				if req.Tag == "promote" {
					a["type"] = "admin"
				}
			}
			out = append(out, waBinary.Node{Tag: "participant", Attrs: a})
		}
		return "result", []waBinary.Node{{Tag: req.Tag, Content: out}}, true
	case "invite":
		if g.Invite == "" || node.Attrs["type"] == "set" {
			g.Invite = randomText(22)
		}
		return "result", []waBinary.Node{{Tag: "invite", Attrs: waBinary.Attrs{"code": g.Invite}}}, true
	}
	return "error", []waBinary.Node{iqError(http.StatusNotImplemented)}, true
}
