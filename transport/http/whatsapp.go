package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"atende/engine"
	"atende/transport/jsonapi"
)

// ConnectionStore is what the connection routes need of the connection store
// (persistence/connection.Store): engine.ConnectionStore plus the greeting/farewell
// images and a dry run of Delete.
type ConnectionStore interface {
	engine.ConnectionStore
	// SetMedia sets the greeting and farewell image paths (nil: unchanged, "":
	// cleared) and returns the connection before and after.
	SetMedia(ctx context.Context, companyID, id engine.ID, greeting, farewell *string) (before, after engine.Connection, err error)
	// CheckDelete answers the error Delete would answer, deleting nothing.
	CheckDelete(ctx context.Context, companyID, id engine.ID) error
}

// ConnectionActors drives the connection actors (actors.Connections): the session
// of each connection's channel, wherever the cluster placed it.
type ConnectionActors interface {
	Start(ctx context.Context, id engine.ID) (engine.Connection, error)
	Restart(ctx context.Context, id engine.ID) error
	Stop(ctx context.Context, id engine.ID) error
	Wipe(ctx context.Context, id engine.ID) error
}

// ConnectionDeps are the collaborators of the connection routes (whatsapp.go). It is
// embedded in Deps. With Connections nil every connection route answers 503
// ERR_UNAVAILABLE; with Actors nil the session routes answer 503 and the CRUD routes
// change rows without starting or stopping sessions (cmd/atende sets both).
type ConnectionDeps struct {
	Connections ConnectionStore
	Actors      ConnectionActors
	// MaxConnectionUploadBytes caps a whole multipart POST/PUT /whatsapp body; 0
	// means DefaultMaxConnectionUpload. Each image is also held to the media store's
	// image limit.
	MaxConnectionUploadBytes int64
}

// DefaultMaxConnectionUpload is the default cap of a multipart connection form: two
// images and the text fields.
const DefaultMaxConnectionUpload = 32 << 20

// Limits of a connection form.
const (
	maxConnFormParts = 64
	maxConnFieldByte = 4*engine.LongTextMax + 16
	maxConnQueueIDs  = 500
	maxConnImages    = 2
)

func (d ConnectionDeps) maxUpload() int64 {
	if d.MaxConnectionUploadBytes > 0 {
		return d.MaxConnectionUploadBytes
	}
	return DefaultMaxConnectionUpload
}

// whatsappEvent is the payload of the realtime "whatsapp" event.
type whatsappEvent = jsonapi.ConnectionEvent

// connectionRoutes registers the connection routes (spec section 7, Connections).
// Reading needs a login to the tenant; every write needs connections:manage.
func (s *Server) connectionRoutes() {
	wired := s.deps.Connections != nil
	s.refRoute("GET /whatsapp", wired, s.listConnections)
	s.refRoute("GET /whatsapp/{$}", wired, s.listConnections)
	s.refRoute("GET /whatsapp/{id}", wired, s.getConnection)
	s.refRoute("POST /whatsapp", wired, s.createConnection)
	s.refRoute("POST /whatsapp/{$}", wired, s.createConnection)
	s.refRoute("PUT /whatsapp/{id}", wired, s.updateConnection)
	s.refRoute("DELETE /whatsapp/{id}", wired, s.deleteConnection)
	actors := wired && s.deps.Actors != nil
	s.refRoute("POST /whatsappsession/{id}", actors, s.sessionCommand("restart", ConnectionActors.Restart))
	s.refRoute("PUT /whatsappsession/{id}", actors, s.sessionCommand("new QR code", newPairing))
	s.refRoute("POST /contacts/import", actors && s.deps.Contacts != nil, s.importContacts)
	s.refRoute("DELETE /whatsappsession/{id}", actors, s.sessionCommand("stop", ConnectionActors.Stop))
	s.refRoute("DELETE /whatsappcreds/{id}", actors, s.sessionCommand("wipe", ConnectionActors.Wipe))
}

// presentConnection replaces stored image paths by signed URLs.
func (s *Server) presentConnection(c engine.Connection) engine.Connection {
	if c.Queues == nil {
		c.Queues = []engine.Queue{}
	}
	if s.deps.Media == nil {
		return c
	}
	prefix := strconv.FormatInt(c.CompanyID, 10) + "/"
	for _, p := range []*string{&c.GreetingMedia, &c.FarewellMedia} {
		if strings.HasPrefix(*p, prefix) {
			if u, err := s.deps.Media.URL(c.CompanyID, *p, s.deps.mediaURLTTL()); err == nil {
				*p = u
			}
		}
	}
	return c
}

// listConnections: GET /whatsapp/ → every connection of the tenant with its queues.
func (s *Server) listConnections(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	cs, err := s.deps.Connections.List(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("list connections: %w", err)
	}
	out := make([]engine.Connection, len(cs))
	for i, c := range cs {
		out[i] = s.presentConnection(c)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getConnection: GET /whatsapp/{id}; another tenant's is 404 ERR_NO_WAPP_FOUND.
func (s *Server) getConnection(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoWappFound)
	if err != nil {
		return err
	}
	c, err := s.deps.Connections.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.presentConnection(c))
	return nil
}

// createConnection: POST /whatsapp → 201 and the connection. Needs
// connections:manage. The body is multipart (fields name, number, isDefault,
// outChannel, greetingMessage, farewellMessage, dailyMax, queueIds, channel; image
// files medias, greetingMedia, farewellMedia) or JSON with the same fields. channel is
// "whatsapp" (default) or "socket"; the cloud channels have their own routes. The
// first connection of a tenant, or one sent with isDefault, becomes the default (the
// old default is cleared). The connection's actor is started, which opens its session.
func (s *Server) createConnection(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageConnections); err != nil {
		return err
	}
	f, err := s.readConnForm(w, r, p)
	if err != nil {
		return err
	}
	in := f.in
	if f.set["channel"] {
		if in.Channel != engine.ChannelWhatsApp && in.Channel != engine.ChannelSocket {
			s.discardFiles(r, p, f.files())
			return fieldError("channel", engine.MsgInvalidValue)
		}
	} else {
		in.Channel = engine.ChannelWhatsApp
	}
	c, err := s.deps.Connections.Create(r.Context(), p.CompanyID, in)
	if err != nil {
		s.discardFiles(r, p, f.files())
		return err
	}
	c = s.applyConnMedia(r, p, c, f)
	if s.deps.Actors != nil {
		if _, err := s.deps.Actors.Start(r.Context(), c.ID); err != nil {
			// The row stands; the periodic activation (cmd/atende) starts it later.
			s.reqLog(r).Warn().Err(err).Int64("conn_id", c.ID).Msg("start connection actor")
		}
	}
	c = s.presentConnection(c)
	// whaticket announces a new connection as an update (its list upserts on update
	// and ignores create), so a created one is published the same way.
	s.publish(p.CompanyID, "whatsapp", whatsappEvent{Action: "update", Whatsapp: &c})
	writeJSON(w, http.StatusCreated, c)
	return nil
}

// updateConnection: PUT /whatsapp/{id}, the fields of createConnection; fields
// absent from the body keep their value (the channel never changes). Needs
// connections:manage. Clearing isDefault on the default is 400
// ERR_NO_OTHER_WHATSAPP: make another connection the default instead. The
// connection's session is restarted to take the change.
func (s *Server) updateConnection(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageConnections); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoWappFound)
	if err != nil {
		return err
	}
	cur, err := s.deps.Connections.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	f, err := s.readConnForm(w, r, p)
	if err != nil {
		return err
	}
	in := engine.ConnectionInput{Name: cur.Name, Number: cur.Number, IsDefault: cur.IsDefault, OutChannel: cur.OutChannel,
		DailyMax: cur.DailyMax, GreetingMessage: cur.GreetingMessage, FarewellMessage: cur.FarewellMessage,
		QueueIDs: make([]engine.ID, 0, len(cur.Queues))}
	for _, q := range cur.Queues {
		in.QueueIDs = append(in.QueueIDs, q.ID)
	}
	overlay(&in, f)
	c, err := s.deps.Connections.Update(r.Context(), p.CompanyID, id, in)
	if err != nil {
		s.discardFiles(r, p, f.files())
		return err
	}
	c = s.applyConnMedia(r, p, c, f)
	if s.deps.Actors != nil {
		if err := s.deps.Actors.Restart(r.Context(), id); err != nil {
			s.reqLog(r).Warn().Err(err).Int64("conn_id", id).Msg("restart connection actor")
		}
	}
	c = s.presentConnection(c)
	s.publish(p.CompanyID, "whatsapp", whatsappEvent{Action: "update", Whatsapp: &c})
	writeJSON(w, http.StatusOK, c)
	return nil
}

// overlay copies the fields the form carried onto in.
func overlay(in *engine.ConnectionInput, f *connForm) {
	if f.set["name"] {
		in.Name = f.in.Name
	}
	if f.set["number"] {
		in.Number = f.in.Number
	}
	if f.set["isDefault"] {
		in.IsDefault = f.in.IsDefault
	}
	if f.set["outChannel"] {
		in.OutChannel = f.in.OutChannel
	}
	if f.set["dailyMax"] {
		in.DailyMax = f.in.DailyMax
	}
	if f.set["greetingMessage"] {
		in.GreetingMessage = f.in.GreetingMessage
	}
	if f.set["farewellMessage"] {
		in.FarewellMessage = f.in.FarewellMessage
	}
	if f.set["queueIds"] {
		in.QueueIDs = f.in.QueueIDs
	}
}

// applyConnMedia records the images of the form on c and removes the files they
// replace. A failure leaves the images as they were (logged); the form's text fields
// are saved already.
func (s *Server) applyConnMedia(r *http.Request, p engine.Principal, c engine.Connection, f *connForm) engine.Connection {
	var g, fw *string
	empty := ""
	if f.clearG {
		g = &empty
	}
	if f.clearF {
		fw = &empty
	}
	if f.greeting != nil {
		g = &f.greeting.Path
	}
	if f.farewell != nil {
		fw = &f.farewell.Path
	}
	if g == nil && fw == nil {
		return c
	}
	before, after, err := s.deps.Connections.SetMedia(r.Context(), p.CompanyID, c.ID, g, fw)
	if err != nil {
		s.reqLog(r).Error().Err(err).Int64("conn_id", c.ID).Msg("set connection images")
		s.discardFiles(r, p, f.files())
		return c
	}
	var old []engine.MediaFile
	if g != nil && before.GreetingMedia != "" && before.GreetingMedia != after.GreetingMedia {
		old = append(old, engine.MediaFile{Path: before.GreetingMedia})
	}
	if fw != nil && before.FarewellMedia != "" && before.FarewellMedia != after.FarewellMedia {
		old = append(old, engine.MediaFile{Path: before.FarewellMedia})
	}
	s.discardFiles(r, p, old)
	return after
}

// deleteConnection: DELETE /whatsapp/{id} → 204. Needs connections:manage. The
// default connection goes only when it is the tenant's last (400
// ERR_NO_OTHER_WHATSAPP otherwise). The session is stopped before the row goes; if
// it cannot be stopped nothing is deleted.
func (s *Server) deleteConnection(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageConnections); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoWappFound)
	if err != nil {
		return err
	}
	cur, err := s.deps.Connections.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	if err := s.refusePendingSchedules(r, p, 0, id); err != nil {
		return err
	}
	if err := s.deps.Connections.CheckDelete(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	if s.deps.Actors != nil {
		if err := s.deps.Actors.Stop(r.Context(), id); err != nil {
			return fmt.Errorf("stop connection %d: %w", id, err)
		}
	}
	if err := s.deps.Connections.Delete(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	var files []engine.MediaFile
	for _, m := range []string{cur.GreetingMedia, cur.FarewellMedia} {
		if m != "" {
			files = append(files, engine.MediaFile{Path: m})
		}
	}
	s.discardFiles(r, p, files)
	s.publish(p.CompanyID, "whatsapp", whatsappEvent{Action: "delete", ConnectionID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// sessionCommand answers POST /whatsappsession/{id} (restart: a new session, so a new
// QR code), PUT /whatsappsession/{id} (newPairing), DELETE /whatsappsession/{id} (stop: disconnect) and DELETE
// /whatsappcreds/{id} (wipe: disconnect and forget the credentials). Each needs
// connections:manage and answers 200 and the connection; the status changes reach
// the clients as whatsappSession events.
func (s *Server) sessionCommand(cmd string, run func(ConnectionActors, context.Context, engine.ID) error) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
		if err := requirePermission(p, engine.ActManageConnections); err != nil {
			return err
		}
		id, err := pathID(r, "id", engine.ErrNoWappFound)
		if err != nil {
			return err
		}
		if _, err := s.deps.Connections.Get(r.Context(), p.CompanyID, id); err != nil {
			return err
		}
		if err := run(s.deps.Actors, r.Context(), id); err != nil {
			return fmt.Errorf("%s connection %d: %w", cmd, id, err)
		}
		c, err := s.deps.Connections.Get(r.Context(), p.CompanyID, id)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, s.presentConnection(c))
		return nil
	}
}

// newPairing answers PUT /whatsappsession/{id}, whaticket's "new QR code" button:
// like whaticket, which clears the stored session before starting it again, the
// credentials are wiped and the session restarted, so a WhatsApp connection shows a
// fresh QR code even when it was paired.
func newPairing(a ConnectionActors, ctx context.Context, id engine.ID) error {
	if err := a.Wipe(ctx, id); err != nil {
		return err
	}
	return a.Restart(ctx, id)
}

// discardFiles removes stored files when the media store can.
func (s *Server) discardFiles(r *http.Request, p engine.Principal, files []engine.MediaFile) {
	if len(files) == 0 || s.deps.Media == nil {
		return
	}
	outs := make([]outgoing, len(files))
	for i, f := range files {
		outs[i].mediaPath = f.Path
	}
	s.discardMedia(r, p, outs)
}
