package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"atende/engine"
)

// AIDeps are the collaborators of the AI routes (docs/ai.md). Both nil: the routes
// answer 503 ERR_UNAVAILABLE.
type AIDeps struct {
	// AI asks the tenant's endpoint (transport/ai.Client).
	AI engine.AI
	// AIConfigs keeps the tenants' endpoints and intents (persistence/aiconfig.Store).
	AIConfigs engine.AIConfigStore
}

// Realtime event of a changed AI configuration: every screen of the tenant learns
// whether the composer's AI toggles work ({action: "update", config: {configured…}}).
const eventAIConfig = "aiConfig"

// aiRoutes registers the AI routes:
//
//	GET    /iaconfig                  the tenant's endpoint without its key (every profile; the composer reads configured)
//	PUT    /iaconfig                  save it (ai:manage)
//	POST   /iaconfig/test             one request with the body's endpoint, the stored key filling an empty one (ai:manage)
//	GET    /intents                   NLP intents (ai:manage)
//	POST   /intents, PUT /intents/{id}, DELETE /intents/{id}  (ai:manage)
//	POST   /messages/askgpt/{ticketId}     {body} → 201, the answer as a chatgpt message
//	PUT    /messages/{id}                  {language: cn|es|gb} → the message with its translation
//	POST   /messages/translated/{ticketId} {body, language} → 201, the text sent translated
//	POST   /messages/audio/{ticketId}      {body} → 201, the text sent as a voice note
func (s *Server) aiRoutes() {
	wired := s.deps.AI != nil && s.deps.AIConfigs != nil
	q := s.deps.TicketQueries != nil && s.deps.Tickets != nil && s.deps.IDs != nil
	s.ticketRoute("GET /iaconfig", wired, s.getAIConfig)
	s.ticketRoute("PUT /iaconfig", wired, s.putAIConfig)
	s.ticketRoute("POST /iaconfig/test", wired, s.testAIConfig)
	s.ticketRoute("GET /intents", wired, s.listIntents)
	s.ticketRoute("POST /intents", wired, s.putIntent)
	s.ticketRoute("PUT /intents/{id}", wired, s.putIntent)
	s.ticketRoute("DELETE /intents/{id}", wired, s.deleteIntent)
	s.ticketRoute("POST /messages/askgpt/{ticketId}", wired && q, s.askAI)
	s.ticketRoute("PUT /messages/{id}", wired && q, s.translateMessage)
	s.ticketRoute("POST /messages/translated/{ticketId}", wired && q, s.sendTranslated)
	s.ticketRoute("POST /messages/audio/{ticketId}", wired && q && s.deps.Media != nil, s.sendSpoken)
}

// aiConfigBody is the body of PUT /iaconfig and POST /iaconfig/test. An empty apiKey
// keeps (or, for a test, uses) the stored key.
type aiConfigBody struct {
	BaseURL     string `json:"baseUrl"`
	APIKey      string `json:"apiKey"`
	Model       string `json:"model"`
	SpeechModel string `json:"speechModel"`
	Voice       string `json:"voice"`
}

func (b aiConfigBody) config(companyID engine.ID) engine.AIConfig {
	return engine.AIConfig{CompanyID: companyID, BaseURL: b.BaseURL, APIKey: b.APIKey, Model: b.Model,
		SpeechModel: b.SpeechModel, Voice: b.Voice}
}

// getAIConfig: GET /iaconfig. ai:manage sees the whole view (without the key);
// everybody else only whether AI is configured, which is what the composer needs.
func (s *Server) getAIConfig(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	c, err := s.deps.AIConfigs.AIConfig(r.Context(), p.CompanyID)
	if err != nil {
		return err
	}
	v := c.View()
	if !p.Can(engine.ActManageAI) {
		v = engine.AIConfigView{Configured: v.Configured}
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) putAIConfig(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageAI); err != nil {
		return err
	}
	var b aiConfigBody
	if err := s.decodeJSON(r, &b); err != nil {
		return err
	}
	c, err := s.deps.AIConfigs.PutAIConfig(r.Context(), b.config(p.CompanyID))
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, eventAIConfig, map[string]any{"action": "update", "config": engine.AIConfigView{Configured: c.Configured()}})
	writeJSON(w, http.StatusOK, c.View())
	return nil
}

// testAIConfig: POST /iaconfig/test → {ok: true}, or the provider's failure as its
// code (ERR_AI_CREDENTIALS, ERR_AI_RATE_LIMITED, ERR_AI_UNAVAILABLE).
func (s *Server) testAIConfig(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageAI); err != nil {
		return err
	}
	var b aiConfigBody
	if err := s.decodeJSON(r, &b); err != nil {
		return err
	}
	c, err := engine.NormalizeAIConfig(b.config(p.CompanyID))
	if err != nil {
		return err
	}
	if c.APIKey == "" {
		stored, err := s.deps.AIConfigs.AIConfig(r.Context(), p.CompanyID)
		if err != nil {
			return err
		}
		c.APIKey = stored.APIKey
	}
	if err := s.deps.AI.Check(r.Context(), c); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	return nil
}

func (s *Server) listIntents(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageAI); err != nil {
		return err
	}
	list, err := s.deps.AIConfigs.Intents(r.Context(), p.CompanyID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// putIntent: POST /intents (201) or PUT /intents/{id} {name, examples, queueId}. The
// queue must be one of the tenant's (ERR_VALIDATION {queueId: "Invalid value"}).
func (s *Server) putIntent(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageAI); err != nil {
		return err
	}
	var id engine.ID
	if r.PathValue("id") != "" {
		var err error
		if id, err = pathID(r, "id", engine.ErrNotFound); err != nil {
			return err
		}
	}
	var b struct {
		Name     string    `json:"name"`
		Examples []string  `json:"examples"`
		QueueID  engine.ID `json:"queueId"`
	}
	if err := s.decodeJSON(r, &b); err != nil {
		return err
	}
	in, err := engine.NormalizeIntent(engine.AIIntent{ID: id, CompanyID: p.CompanyID, Name: b.Name, Examples: b.Examples, QueueID: b.QueueID})
	if err != nil {
		return err
	}
	if s.deps.Queues != nil {
		if _, err := s.deps.Queues.Get(r.Context(), p.CompanyID, in.QueueID); err != nil {
			if isNotFound(err) {
				return fieldError("queueId", engine.MsgInvalidValue)
			}
			return err
		}
	}
	saved, err := s.deps.AIConfigs.PutIntent(r.Context(), in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if id == 0 {
		status = http.StatusCreated
	}
	writeJSON(w, status, saved)
	return nil
}

func (s *Server) deleteIntent(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageAI); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNotFound)
	if err != nil {
		return err
	}
	if err := s.deps.AIConfigs.DeleteIntent(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// workableTicket reads ticket id for an AI request on it before the provider is
// asked: it must be the tenant's, visible to p and, when open is set, open — the
// actor checks again when the result is recorded, this only spares the provider a
// request whose answer would be refused.
func (s *Server) workableTicket(ctx context.Context, p engine.Principal, id engine.ID, open bool) error {
	t, err := s.deps.TicketQueries.GetTicket(ctx, p.CompanyID, id)
	if err != nil {
		return err
	}
	if !engine.SeesTicket(p, t) {
		return engine.E(engine.ErrNoPermission)
	}
	if open && t.Status != engine.StatusOpen {
		return engine.Wrap(engine.ErrInvalidTransition, fmt.Errorf("ticket %d is %s", id, t.Status))
	}
	return nil
}

// askAI: POST /messages/askgpt/{ticketId} {body} → 201 and the answer, a message of
// media type chatgpt that only the attendants see (AddWhisper). The provider gets the
// conversation's latest messages (engine.AskPrompt bounds them) and the question.
func (s *Server) askAI(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	ticketID, err := pathID(r, "ticketId", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	var b whisperBody
	if err := s.decodeJSON(r, &b); err != nil {
		return err
	}
	if err := checkBody(b.Body, true); err != nil {
		return err
	}
	if err := s.workableTicket(r.Context(), p, ticketID, true); err != nil {
		return err
	}
	page, err := s.deps.TicketQueries.ListMessages(r.Context(), p.CompanyID, ticketID, engine.MessageQuery{PageNumber: 1})
	if err != nil {
		return err
	}
	answer, err := s.deps.AI.Complete(r.Context(), p.CompanyID, engine.AskPrompt(page.Messages, b.Body))
	if err != nil {
		return err
	}
	msgs, _, err := s.send(r, p, ticketID, []outgoing{{body: answer, whisper: true, mediaType: engine.MediaChatGPT}})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, msgs[0])
	return nil
}

// language reads a translation language code: ERR_VALIDATION {language: …} else.
func language(code string) error {
	if strings.TrimSpace(code) == "" {
		return fieldError("language", engine.MsgRequired)
	}
	if _, ok := engine.TranslationLanguage(code); !ok {
		return fieldError("language", engine.MsgInvalidValue)
	}
	return nil
}

// translateMessage: PUT /messages/{id} {language} → 200 and the message with its
// translation (also sent to the open chats as appMessage update). Any message of a
// ticket the caller sees, in any status, except deleted ones and messages without text.
func (s *Server) translateMessage(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoMessageFound)
	if err != nil {
		return err
	}
	var b struct {
		Language string `json:"language"`
	}
	if err := s.decodeJSON(r, &b); err != nil {
		return err
	}
	if err := language(b.Language); err != nil {
		return err
	}
	loc, ok := s.deps.TicketQueries.(engine.MessageLocator)
	if !ok {
		return engine.Wrap(engine.ErrUnavailable, fmt.Errorf("TicketQueries %T does not implement engine.MessageLocator", s.deps.TicketQueries))
	}
	bulk, ok := s.deps.TicketQueries.(interface {
		GetMessages(ctx context.Context, companyID engine.ID, ids []engine.ID) ([]engine.Message, error)
	})
	if !ok {
		return engine.Wrap(engine.ErrUnavailable, fmt.Errorf("TicketQueries %T cannot read one message", s.deps.TicketQueries))
	}
	ticketID, err := loc.MessageTicket(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	if err := s.workableTicket(r.Context(), p, ticketID, false); err != nil {
		return err
	}
	ms, err := bulk.GetMessages(r.Context(), p.CompanyID, []engine.ID{id})
	if err != nil {
		return err
	}
	if len(ms) != 1 || ms[0].IsDeleted {
		return engine.E(engine.ErrNoMessageFound)
	}
	if strings.TrimSpace(ms[0].Body) == "" {
		return fieldError("body", engine.MsgRequired)
	}
	tr, err := s.deps.AI.Complete(r.Context(), p.CompanyID, engine.TranslatePrompt(ms[0].Body, b.Language))
	if err != nil {
		return err
	}
	_, pos, err := s.deps.Tickets.Do(r.Context(), p, ticketID, engine.TranslateMessage{MessageID: id, ByUserID: p.UserID, Language: b.Language, Body: tr})
	if err != nil {
		return err
	}
	m := ms[0]
	if s.waitRead(r, pos) {
		if again, err := bulk.GetMessages(r.Context(), p.CompanyID, []engine.ID{id}); err == nil && len(again) == 1 {
			m = again[0]
		}
	}
	m.Translation, m.TranslationLanguage = tr, b.Language
	writeJSON(w, http.StatusOK, s.presentMessages(p.CompanyID, []engine.Message{m})[0])
	return nil
}

// sendTranslated: POST /messages/translated/{ticketId} {body, language} → 201 and
// the message sent: the composer's translation toggle. The customer gets the
// translation; the attendant's text is kept as the message's translation, so the
// chat shows both.
func (s *Server) sendTranslated(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	ticketID, err := pathID(r, "ticketId", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	var b struct {
		Body     string `json:"body"`
		Language string `json:"language"`
	}
	if err := s.decodeJSON(r, &b); err != nil {
		return err
	}
	if err := checkBody(b.Body, true); err != nil {
		return err
	}
	if err := language(b.Language); err != nil {
		return err
	}
	if err := s.workableTicket(r.Context(), p, ticketID, true); err != nil {
		return err
	}
	tr, err := s.deps.AI.Complete(r.Context(), p.CompanyID, engine.TranslatePrompt(b.Body, b.Language))
	if err != nil {
		return err
	}
	msgs, _, err := s.send(r, p, ticketID, []outgoing{{body: tr}})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, msgs[0])
	return nil
}

// sendSpoken: POST /messages/audio/{ticketId} {body} → 201 and the voice note sent:
// the text becomes speech at the tenant's endpoint, is stored like an upload (the
// media store checks its type and size) and goes out through the normal send path.
func (s *Server) sendSpoken(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	ticketID, err := pathID(r, "ticketId", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	var b whisperBody
	if err := s.decodeJSON(r, &b); err != nil {
		return err
	}
	if err := checkBody(b.Body, true); err != nil {
		return err
	}
	if err := s.workableTicket(r.Context(), p, ticketID, true); err != nil {
		return err
	}
	audio, mt, err := s.deps.AI.Speak(r.Context(), p.CompanyID, b.Body)
	if err != nil {
		return err
	}
	f, err := s.deps.Media.Save(r.Context(), p.CompanyID, bytes.NewReader(audio), "voice.wav", mt)
	if err != nil {
		return err
	}
	if f.Type != engine.MediaAudio {
		return engine.Wrap(engine.ErrAIUnavailable, fmt.Errorf("speech stored as %s", f.Type))
	}
	msgs, _, err := s.send(r, p, ticketID, []outgoing{{mediaType: engine.MediaAudio, mediaPath: f.Path}})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, msgs[0])
	return nil
}
