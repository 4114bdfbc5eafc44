package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"atende/engine"
)

// ChatDeps are the collaborators of the internal chat routes. It is embedded in Deps.
// When Chats or ChatQueries is nil the /chats routes answer 503 ERR_UNAVAILABLE. The
// routes also use Deps.Users (participants must be users of the tenant),
// TicketDeps.IDs (chat and message ids) and TicketDeps.Waiter (read your writes).
type ChatDeps struct {
	// Chats runs commands on the chat actors (actors.Chats).
	Chats engine.ChatCommander
	// ChatQueries reads the chats read model (readmodel.ChatQueries).
	ChatQueries engine.ChatQueries
}

// chatRoutes registers the internal chat routes (whaticket's /chats family). Every
// route needs chats:use; a chat is read and written by its participants only (403
// ERR_NO_PERMISSION for a colleague outside it, 404 ERR_NOT_FOUND for another
// tenant's chat), and edited or deleted by its owner only.
func (s *Server) chatRoutes() {
	wired := s.deps.Chats != nil && s.deps.ChatQueries != nil && s.deps.IDs != nil
	s.refRoute("GET /chats", wired, s.listChats)
	s.refRoute("GET /chats/{$}", wired, s.listChats)
	s.refRoute("GET /chats/{id}", wired, s.getChat)
	s.refRoute("POST /chats", wired, s.createChat)
	s.refRoute("PUT /chats/{id}", wired, s.updateChat)
	s.refRoute("DELETE /chats/{id}", wired, s.deleteChat)
	s.refRoute("GET /chats/{id}/messages", wired, s.listChatMessages)
	s.refRoute("POST /chats/{id}/messages", wired, s.postChatMessage)
	s.refRoute("POST /chats/{id}/read", wired, s.readChat)
}

// chatInput is the body of POST and PUT /chats. Users are ids or whaticket's user
// objects ({id, name}); nil fields of a PUT are left as they are.
type chatInput struct {
	Title *string            `json:"title"`
	Users *[]json.RawMessage `json:"users"`
}

// chatUsers reads the user list and checks that each is a user of p's tenant: a
// user of another tenant, a deleted one or a malformed entry is ERR_VALIDATION
// {users: "Invalid value"}, the same answer for each so that ids of other tenants
// cannot be probed.
func (s *Server) chatUsers(r *http.Request, p engine.Principal, raw []json.RawMessage) ([]engine.ID, error) {
	if len(raw) > engine.ChatMaxParticipants {
		return nil, fieldError("users", engine.MsgTooLong)
	}
	ids := make([]engine.ID, 0, len(raw))
	seen := map[engine.ID]bool{}
	for _, item := range raw {
		var id engine.ID
		if err := json.Unmarshal(item, &id); err != nil {
			var obj struct {
				ID engine.ID `json:"id"`
			}
			if err := json.Unmarshal(item, &obj); err != nil {
				return nil, fieldError("users", engine.MsgInvalidValue)
			}
			id = obj.ID
		}
		if id <= 0 {
			return nil, fieldError("users", engine.MsgInvalidValue)
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if id != p.UserID {
			if _, err := s.deps.Users.Get(r.Context(), p.CompanyID, id); err != nil {
				if engine.CodeOf(err) == engine.ErrNoUserFound {
					return nil, fieldError("users", engine.MsgInvalidValue)
				}
				return nil, fmt.Errorf("chat user %d: %w", id, err)
			}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// listChats: GET /chats/?searchParam=&pageNumber= → {records, count, hasMore}: the
// caller's chats, 20 a page, latest activity first.
func (s *Server) listChats(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActUseChat); err != nil {
		return err
	}
	search, page, err := listParams(r)
	if err != nil {
		return err
	}
	list, count, more, err := s.deps.ChatQueries.ListChats(r.Context(), p.CompanyID, p.UserID,
		engine.ChatQuery{Search: search, Offset: (page - 1) * engine.ChatPageSize})
	if err != nil {
		return fmt.Errorf("list chats: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"records": list, "count": count, "hasMore": more})
	return nil
}

// chatPathID opens every /chats/{id} route: the caller needs chats:use, and the path
// must name a chat id (whether the caller takes part is the actor's decision).
func chatPathID(r *http.Request, p engine.Principal) (engine.ID, error) {
	if err := requirePermission(p, engine.ActUseChat); err != nil {
		return 0, err
	}
	return pathID(r, "id")
}

// doChat runs cmd on chat id's actor and answers the chat after it, as chatFor reads
// it (the read model once it has applied the command's events).
func (s *Server) doChat(r *http.Request, p engine.Principal, id engine.ID, cmd engine.ChatCommand) (engine.Chat, error) {
	st, pos, err := s.deps.Chats.Chat(r.Context(), p, id, cmd)
	if err != nil {
		return engine.Chat{}, err
	}
	return s.chatFor(r, p, id, pos, &st)
}

// chatFor returns chat id as the read model shows it. Without st it first authorises
// p to read the chat on its actor (the truth). After a command (st the actor's state
// after it, pos the journal position of its last event, 0 for none) it first
// waits for the read model to apply pos; if that wait times out and the read model
// has not got the chat yet, the answer is built from st (participants without names).
func (s *Server) chatFor(r *http.Request, p engine.Principal, id engine.ID, pos int64, st *engine.ChatState) (engine.Chat, error) {
	if st == nil {
		if _, err := s.deps.Chats.ChatState(r.Context(), p, id); err != nil {
			return engine.Chat{}, err
		}
	}
	caughtUp := s.waitRead(r, pos)
	c, err := s.deps.ChatQueries.GetChat(r.Context(), p.CompanyID, id)
	if err != nil && !caughtUp && st != nil && engine.CodeOf(err) == engine.ErrNotFound {
		return chatOfState(*st), nil
	}
	return c, err
}

// chatOfState is the chat record of an actor's state.
func chatOfState(st engine.ChatState) engine.Chat {
	c := engine.Chat{ID: st.ID, UUID: st.UUID, CompanyID: st.CompanyID, Title: st.Title, OwnerID: st.OwnerID,
		LastMessage: st.LastMessage, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt, Users: []engine.ChatUser{}}
	for _, u := range st.Participants {
		c.Users = append(c.Users, engine.ChatUser{ChatID: st.ID, UserID: u, Unreads: st.Unreads[u]})
	}
	return c
}

// getChat: GET /chats/{id}.
func (s *Server) getChat(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := chatPathID(r, p)
	if err != nil {
		return err
	}
	c, err := s.chatFor(r, p, id, 0, nil)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// createChat: POST /chats {users, title} → 201 and the chat. The caller owns it and
// takes part; more than one other user makes a group, which needs a title.
func (s *Server) createChat(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActUseChat); err != nil {
		return err
	}
	var in chatInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	var raw []json.RawMessage
	if in.Users != nil {
		raw = *in.Users
	}
	users, err := s.chatUsers(r, p, raw)
	if err != nil {
		return err
	}
	title := ""
	if in.Title != nil {
		title = *in.Title
	}
	id, err := s.deps.IDs.Next(r.Context(), "chat")
	if err != nil {
		return fmt.Errorf("chat id: %w", err)
	}
	c, err := s.doChat(r, p, id, engine.CreateChat{ChatID: id, UUID: uuid.NewString(),
		CompanyID: p.CompanyID, OwnerID: p.UserID, Title: title, Users: users})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c)
	return nil
}

// updateChat: PUT /chats/{id} {title?, users?}; owner only.
func (s *Server) updateChat(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := chatPathID(r, p)
	if err != nil {
		return err
	}
	var in chatInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	cmd := engine.EditChat{Title: in.Title}
	if in.Users != nil {
		// Who may edit is the actor's decision; check the chat is visible first so that
		// a stranger learns nothing from the user validation.
		if _, err := s.deps.Chats.ChatState(r.Context(), p, id); err != nil {
			return err
		}
		users, err := s.chatUsers(r, p, *in.Users)
		if err != nil {
			return err
		}
		cmd.Users = &users
	}
	c, err := s.doChat(r, p, id, cmd)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// deleteChat: DELETE /chats/{id} → 204; owner only.
func (s *Server) deleteChat(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := chatPathID(r, p)
	if err != nil {
		return err
	}
	_, pos, err := s.deps.Chats.Chat(r.Context(), p, id, engine.DeleteChat{})
	if err != nil {
		return err
	}
	s.waitRead(r, pos)
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// listChatMessages: GET /chats/{id}/messages?pageNumber= → {records, count,
// hasMore}: 30 a page, page 1 the newest, oldest first within a page.
func (s *Server) listChatMessages(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := chatPathID(r, p)
	if err != nil {
		return err
	}
	page, err := queryInt(r, "pageNumber", 1)
	if err != nil {
		return err
	}
	if page < 1 || page > maxPageNumber {
		return fieldError("pageNumber", engine.MsgInvalidValue)
	}
	if _, err := s.deps.Chats.ChatState(r.Context(), p, id); err != nil {
		return err
	}
	msgs, count, more, err := s.deps.ChatQueries.ListChatMessages(r.Context(), p.CompanyID, id, page)
	if err != nil {
		return fmt.Errorf("list chat messages: %w", err)
	}
	for i := range msgs {
		msgs[i] = s.signChatMedia(p.CompanyID, msgs[i])
	}
	writeJSON(w, http.StatusOK, map[string]any{"records": msgs, "count": count, "hasMore": more})
	return nil
}

// postChatMessage: POST /chats/{id}/messages {message} → 201 and the message.
// Participants only; the text is trimmed, required, at most engine.MaxMessageBody
// characters. A multipart body (fields medias: files, body: caption) posts one
// message per file, the caption on the first, answered as an array when several:
// files are checked by the media store like every upload (ERR_MEDIA_TOO_LARGE 413,
// ERR_MEDIA_TYPE_NOT_ALLOWED 415) before anything is posted.
func (s *Server) postChatMessage(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := chatPathID(r, p)
	if err != nil {
		return err
	}
	var posts []engine.PostChatMessage
	if strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "multipart/form-data") {
		if posts, err = s.chatUpload(w, r, p, id); err != nil {
			return err
		}
	} else {
		var in struct {
			Message string `json:"message"`
		}
		if err := s.decodeJSON(r, &in); err != nil {
			return err
		}
		posts = []engine.PostChatMessage{{Body: in.Message}}
	}
	var out []engine.ChatMessage
	for i, post := range posts {
		mid, err := s.deps.IDs.Next(r.Context(), "chat_message")
		if err != nil {
			return fmt.Errorf("chat message id: %w", err)
		}
		post.MessageID, post.SenderID = mid, p.UserID
		st, pos, err := s.deps.Chats.Chat(r.Context(), p, id, post)
		if err != nil {
			s.discardMedia(r, p, chatMedia(posts[i:]))
			return err
		}
		s.waitRead(r, pos)
		m := engine.ChatMessage{ID: mid, ChatID: id, SenderID: p.UserID, Message: strings.TrimSpace(post.Body),
			MediaPath: post.MediaPath, MediaName: post.MediaName, MediaType: post.MediaType,
			CreatedAt: st.UpdatedAt, Sender: &engine.UserRef{ID: p.UserID}}
		out = append(out, s.signChatMedia(p.CompanyID, m))
	}
	if u, err := s.deps.Users.Get(r.Context(), p.CompanyID, p.UserID); err == nil {
		for i := range out {
			out[i].Sender.Name = u.Name
		}
	}
	if len(out) == 1 {
		writeJSON(w, http.StatusCreated, out[0])
	} else {
		writeJSON(w, http.StatusCreated, out)
	}
	return nil
}

// chatUpload reads a multipart chat post after checking that p takes part in chat
// id, so nothing is stored for a chat the caller may not write to.
func (s *Server) chatUpload(w http.ResponseWriter, r *http.Request, p engine.Principal, id engine.ID) ([]engine.PostChatMessage, error) {
	if s.deps.Media == nil {
		return nil, engine.Wrap(engine.ErrUnavailable, errors.New("no media store"))
	}
	if _, err := s.deps.Chats.ChatState(r.Context(), p, id); err != nil {
		return nil, err
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.deps.maxUploadBytes())
	up, err := s.readUpload(r, p)
	if err != nil {
		return nil, err
	}
	if len(up.files) == 0 {
		return []engine.PostChatMessage{{Body: up.body}}, nil
	}
	posts := make([]engine.PostChatMessage, len(up.files))
	for i, f := range up.files {
		posts[i] = engine.PostChatMessage{MediaPath: f.Path, MediaName: f.Name, MediaType: f.Type}
		if i == 0 && strings.TrimSpace(up.body) != f.Name {
			posts[i].Body = up.body
		}
	}
	return posts, nil
}

// chatMedia lists the stored files of posts, for discardMedia.
func chatMedia(posts []engine.PostChatMessage) []outgoing {
	var outs []outgoing
	for _, p := range posts {
		if p.MediaPath != "" {
			outs = append(outs, outgoing{mediaPath: p.MediaPath})
		}
	}
	return outs
}

// signChatMedia sets the message's MediaURL, a signed link the browser can load.
func (s *Server) signChatMedia(companyID engine.ID, m engine.ChatMessage) engine.ChatMessage {
	if m.MediaPath != "" && s.deps.Media != nil {
		if u, err := s.deps.Media.NamedURL(companyID, m.MediaPath, m.MediaName, s.deps.mediaURLTTL()); err == nil {
			m.MediaURL = u
		}
	}
	return m
}

// readChat: POST /chats/{id}/read → the chat with the caller's unread count at 0.
// Whaticket's body {userId} is ignored: one marks only one's own reading.
func (s *Server) readChat(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := chatPathID(r, p)
	if err != nil {
		return err
	}
	c, err := s.doChat(r, p, id, engine.ReadChat{UserID: p.UserID})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}
