package waba

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"atende/engine"
	"atende/transport/channel/cloud"
	"atende/transport/channel/meta"
	"atende/transport/jsonapi"
)

// registerRequest is POST /wacloudapi (spec section 7).
type registerRequest struct {
	WabaID       string `json:"currWabaId"`
	PhoneID      string `json:"currWabaPhoneId"`
	PhoneNumber  string `json:"currPhoneNumber"`
	VerifiedName string `json:"currVerifiedName"`
	Token        string `json:"currWabaToken"`
}

var digits = regexp.MustCompile(`[^0-9]`)

// register creates a "waba" connection for a Cloud API number, or renews the token of
// the tenant's connection that already serves it. The token is checked against the
// number (GET /{phone-number-id}) and the app subscribed to the business account's
// web-hooks (POST /{waba-id}/subscribed_apps) before anything is stored. The answer
// is the connection, without credentials.
func (s *Service) register(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if !p.Can(engine.ActManageConnections) {
		return engine.E(engine.ErrNoPermission)
	}
	var in registerRequest
	if err := meta.DecodeJSON(r, &in); err != nil {
		return err
	}
	if err := meta.Required(map[string]string{"currWabaId": in.WabaID, "currWabaPhoneId": in.PhoneID, "currWabaToken": in.Token}); err != nil {
		return err
	}
	ctx := r.Context()
	phone, err := s.readPhone(ctx, in.PhoneID, in.Token)
	if err != nil {
		return err
	}
	if err := s.subscribe(ctx, in.WabaID, in.Token); err != nil {
		return err
	}
	conn, err := s.connect(ctx, p.CompanyID, in, phone, "")
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, conn)
	return nil
}

// phoneDetails is what GET /{phone-number-id} tells of a number.
type phoneDetails struct {
	DisplayPhoneNumber string `json:"display_phone_number"`
	VerifiedName       string `json:"verified_name"`
}

// readPhone reads the number's details with token: it checks that the token reaches
// the number.
func (s *Service) readPhone(ctx context.Context, phoneID, token string) (phoneDetails, error) {
	var phone phoneDetails
	q := url.Values{"fields": {"display_phone_number,verified_name"}}
	if err := s.graph.JSON(ctx, http.MethodGet, "/"+url.PathEscape(phoneID), q, token, nil, &phone); err != nil {
		return phoneDetails{}, graphFailure("waba register: read number", err)
	}
	return phone, nil
}

// subscribe subscribes the app to the business account's web-hooks.
func (s *Service) subscribe(ctx context.Context, wabaID, token string) error {
	if err := s.graph.JSON(ctx, http.MethodPost, "/"+url.PathEscape(wabaID)+"/subscribed_apps", nil, token, nil, nil); err != nil {
		return graphFailure("waba register: subscribe app", err)
	}
	return nil
}

// connect is where both registrations (POST /wacloudapi and the embedded signup) end:
// it names the connection after the request or the number's details and stores the
// credentials on it (upsert). pin is the number's two-step verification PIN, kept in
// the credentials' Secret; "" keeps the one already stored for the number, if any.
func (s *Service) connect(ctx context.Context, companyID engine.ID, in registerRequest, phone phoneDetails, pin string) (engine.Connection, error) {
	number := digits.ReplaceAllString(in.PhoneNumber, "")
	if number == "" {
		number = digits.ReplaceAllString(phone.DisplayPhoneNumber, "")
	}
	name := in.VerifiedName
	if name == "" {
		name = phone.VerifiedName
	}
	if pin == "" {
		pin = s.storedPIN(ctx, companyID, in.PhoneID)
	}
	cred := engine.ChannelCredentials{CompanyID: companyID, Provider: engine.ProviderWABA,
		ExternalID: in.PhoneID, AccountID: in.WabaID, Token: in.Token, Secret: pin}
	return s.upsert(ctx, companyID, cred, engine.ConnectionInput{Name: meta.ConnectionName(name, "WABA", number),
		Number: number, Channel: engine.ChannelWABA})
}

// storedPIN is the two-step verification PIN stored for the tenant's number, "" when
// there is none (or the number is not the tenant's).
func (s *Service) storedPIN(ctx context.Context, companyID engine.ID, phoneID string) string {
	prev, err := s.deps.Credentials.ByExternal(ctx, engine.ProviderWABA, phoneID)
	if err != nil || prev.CompanyID != companyID {
		return ""
	}
	return prev.Secret
}

// upsert stores cred on the tenant's connection already routed by (provider,
// external id) — renewed credentials — or on a new connection made of in, and
// (re)starts its actor.
func (s *Service) upsert(ctx context.Context, companyID engine.ID, cred engine.ChannelCredentials, in engine.ConnectionInput) (engine.Connection, error) {
	return meta.Upsert(ctx, meta.UpsertDeps{Connections: s.deps.Connections, Credentials: s.deps.Credentials,
		Starter: s.deps.Actors, Publisher: s.deps.Publisher, Logger: s.log}, companyID, cred, in)
}

// graphFailure maps a Graph failure of an interactive route to the client's code:
// credentials refused → ERR_CHANNEL_CREDENTIALS, provider down → ERR_UNAVAILABLE,
// anything else → ERR_CHANNEL_REFUSED.
func graphFailure(what string, err error) error { return cloud.Interactive(meta.Classify(what, err)) }

// Template is an approved message template (HSM), as GET /wabatemplates lists it.
type Template struct {
	ID           string    `json:"id"`
	TemplateName string    `json:"templateName"`
	Language     string    `json:"language"`
	Category     string    `json:"category"`
	ConnectionID engine.ID `json:"whatsappId"`
}

type graphTemplate struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Language   string `json:"language"`
	Category   string `json:"category"`
	Components []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"components"`
}

// templates answers {"templates": [...]}: the approved templates of every business
// account of the tenant's WABA connections (GET /{waba-id}/message_templates).
func (s *Service) templates(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	creds, err := s.deps.Credentials.ByCompany(r.Context(), p.CompanyID, engine.ProviderWABA)
	if err != nil {
		return err
	}
	out := []Template{}
	seen := map[string]bool{}
	for _, c := range creds {
		if seen[c.AccountID] || c.AccountID == "" {
			continue
		}
		seen[c.AccountID] = true
		var page struct {
			Data []graphTemplate `json:"data"`
		}
		q := url.Values{"fields": {"id,name,status,language,category,components"}, "limit": {"200"}}
		if err := s.graph.JSON(r.Context(), http.MethodGet, "/"+url.PathEscape(c.AccountID)+"/message_templates", q, c.Token, nil, &page); err != nil {
			return graphFailure("waba templates", err)
		}
		for _, t := range page.Data {
			if t.Status != "" && t.Status != "APPROVED" {
				continue
			}
			out = append(out, Template{ID: t.ID, TemplateName: t.Name, Language: t.Language, Category: t.Category, ConnectionID: c.ConnectionID})
		}
	}
	jsonapi.WriteJSON(w, http.StatusOK, map[string]any{"templates": out})
	return nil
}

// ownTemplate refuses a template that the connection's business account does not
// hold: GET /{template-id} answers for any template the token can read, so the
// account's own list, filtered by the template's name, must name the same id.
func (s *Service) ownTemplate(ctx context.Context, cred engine.ChannelCredentials, t graphTemplate) error {
	notOwned := &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"templateId": MsgTemplateNotOwned}}
	if cred.AccountID == "" || t.ID == "" || t.Name == "" {
		return notOwned
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	q := url.Values{"fields": {"id"}, "name": {t.Name}, "limit": {"200"}}
	if err := s.graph.JSON(ctx, http.MethodGet, "/"+url.PathEscape(cred.AccountID)+"/message_templates", q, cred.Token, nil, &page); err != nil {
		return graphFailure("waba template owner", err)
	}
	for _, d := range page.Data {
		if d.ID == t.ID {
			return nil
		}
	}
	return notOwned
}

// templateRequest is POST /waba/sendtemplatemessage/ (spec section 7).
type templateRequest struct {
	TemplateID    string      `json:"templateId"`
	ContactName   string      `json:"contactName"`
	PatientName   string      `json:"patientName"`
	AttendantName string      `json:"attendantName"`
	DateTime      string      `json:"dateTime"`
	ContactID     meta.FlexID `json:"lcontactId"`
	TicketID      meta.FlexID `json:"lticketId"`
}

// MsgChooseTemplate is the spec's rule for a request without a template (section 5).
const MsgChooseTemplate = "Necessita escolher um template HSM para poder enviar a mensagem"

// MsgTemplateNotOwned is the field message of a template that is not one of the
// connection's business account's: a token may reach several accounts, and a
// template of another cannot be sent from this number.
const MsgTemplateNotOwned = "Template not found for this connection"

// MsgTemplateNotApproved is the field message of a template Meta has not approved
// (pending, rejected, paused, disabled): the Cloud API would refuse to send it.
const MsgTemplateNotApproved = "Template not approved"

// TemplateValueMax is the longest value (in characters) a template placeholder takes.
const TemplateValueMax = 256

// validate checks the values that fill the template's placeholders: each goes to
// the Cloud API and into the ticket, so it must be a single line of text a database
// can store (valid UTF-8, no NUL or other control character) of at most
// TemplateValueMax characters. Failures are ERR_VALIDATION with the spec's messages.
func (in templateRequest) validate() error {
	fields := map[string]string{}
	for _, f := range []struct{ name, v string }{{"contactName", in.ContactName}, {"patientName", in.PatientName},
		{"attendantName", in.AttendantName}, {"dateTime", in.DateTime}} {
		switch {
		case !templateText(f.v):
			fields[f.name] = engine.MsgInvalidValue
		case utf8.RuneCountInString(f.v) > TemplateValueMax:
			fields[f.name] = engine.MsgTooLong
		}
	}
	if len(fields) > 0 {
		return &engine.Error{Code: engine.ErrValidation, Fields: fields}
	}
	return nil
}

// templateText: valid UTF-8 without control characters (NUL, line breaks, tabs —
// the Cloud API refuses the last two in parameters too).
func templateText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

var placeholder = regexp.MustCompile(`\{\{\d+\}\}`)

// sendTemplate sends an approved template to the contact of a ticket on the ticket's
// WABA connection. The body placeholders {{1}}…{{4}} take contactName, patientName,
// attendantName and dateTime, in that order (as many as the template has). Once the
// Cloud API accepted it, the rendered text is recorded in the contact's ticket
// (recordTemplate); lcontactId is accepted and ignored (the ticket names the contact).
func (s *Service) sendTemplate(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	var in templateRequest
	if err := meta.DecodeJSON(r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.TemplateID) == "" {
		return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"templateId": MsgChooseTemplate}}
	}
	if err := in.validate(); err != nil {
		return err
	}
	if in.TicketID <= 0 || s.deps.Tickets == nil {
		return engine.E(engine.ErrNoTicketFound)
	}
	ctx := r.Context()
	connID, number, err := s.deps.Tickets.TicketTarget(ctx, p, engine.ID(in.TicketID))
	if err != nil {
		return err
	}
	cred, err := s.deps.Credentials.Get(ctx, connID)
	if engine.CodeOf(err) == engine.ErrNotFound || err == nil && cred.Provider != engine.ProviderWABA {
		return engine.E(engine.ErrNoWappFound)
	}
	if err != nil {
		return err
	}
	var t graphTemplate
	q := url.Values{"fields": {"id,name,status,language,category,components"}}
	if err := s.graph.JSON(ctx, http.MethodGet, "/"+url.PathEscape(in.TemplateID), q, cred.Token, nil, &t); err != nil {
		return graphFailure("waba template", err)
	}
	if t.Status != "APPROVED" {
		return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"templateId": MsgTemplateNotApproved}}
	}
	if err := s.ownTemplate(ctx, cred, t); err != nil {
		return err
	}
	body := ""
	for _, c := range t.Components {
		if strings.EqualFold(c.Type, "BODY") {
			body = c.Text
		}
	}
	n := 0 // the Cloud API wants one parameter per variable: the highest {{i}}
	for _, ph := range placeholder.FindAllString(body, -1) {
		if i, err := strconv.Atoi(strings.Trim(ph, "{}")); err == nil && i > n && i <= 64 {
			n = i
		}
	}
	values := []string{in.ContactName, in.PatientName, in.AttendantName, in.DateTime}
	tpl := map[string]any{"name": t.Name, "language": map[string]string{"code": t.Language}}
	params := make([]string, 0, n)
	for i := 0; i < n; i++ {
		v := ""
		if i < len(values) {
			v = values[i]
		}
		if strings.TrimSpace(v) == "" {
			v = "-" // the Cloud API refuses empty parameters
		}
		params = append(params, v)
	}
	if n > 0 {
		wire := make([]map[string]string, 0, n)
		for _, v := range params {
			wire = append(wire, map[string]string{"type": "text", "text": v})
		}
		tpl["components"] = []map[string]any{{"type": "body", "parameters": wire}}
	}
	id, err := s.send(ctx, cred, map[string]any{"messaging_product": "whatsapp", "recipient_type": "individual",
		"to": number, "type": "template", "template": tpl})
	if err != nil {
		return graphFailure("waba send template", err)
	}
	s.recordTemplate(ctx, cred, number, id, engine.SanitizeText(renderTemplate(t.Name, body, params)))
	jsonapi.WriteJSON(w, http.StatusOK, map[string]string{"providerId": id})
	return nil
}

// renderTemplate is the text the customer reads: the template's body with {{i}}
// replaced by the i-th parameter sent (a placeholder without one stays as it is), or
// "[template <name>]" for a template without a body.
func renderTemplate(name, body string, params []string) string {
	if strings.TrimSpace(body) == "" {
		return "[template " + name + "]"
	}
	return placeholder.ReplaceAllStringFunc(body, func(ph string) string {
		i, err := strconv.Atoi(strings.Trim(ph, "{}"))
		if err != nil || i < 1 || i > len(params) {
			return ph
		}
		return params[i-1]
	})
}

// recordTemplate records a template the Cloud API accepted as our own message in the
// contact's current ticket: through the connection actor's sink, as an outbound echo
// (FromMe) carrying the wamid, so the ticket stores it as an automatic message and
// dispatch does not send it again; a second recording of the same wamid is
// de-duplicated by the ticket actor. The send has happened whatever comes of this:
// a failure is logged, not answered (the client retrying would send the template
// twice). The recording outlives a client that hangs up.
func (s *Service) recordTemplate(ctx context.Context, cred engine.ChannelCredentials, number, providerID, body string) {
	if providerID == "" {
		s.log.Warn().Int64("conn_id", cred.ConnectionID).Msg("template sent without a message id: not recorded in the ticket")
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.CallTimeout)
	defer cancel()
	err := s.deps.Actors.Sink(cred.ConnectionID).Inbound(ctx, engine.InboundMessage{ProviderID: providerID,
		From: engine.ChannelContact{Number: number}, FromMe: true, Body: body, At: time.Now().UTC()})
	if err != nil {
		s.log.Error().Err(err).Int64("conn_id", cred.ConnectionID).Str("provider_id", providerID).
			Msg("template sent but not recorded in the ticket")
	}
}
