package webchat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"atende/engine"
)

// Cluster lets a Server serve the visitors of connections whose channel runs on
// another node. With Config.Cluster set, every node accepts every web chat
// connection's visitors: a visitor's messages go to the connection's actor through
// the cluster (Endpoint's sink), and what the actor's Channel.Send delivers is
// published to every node (Publish), whose Server.Deliver hands it to the visitor's
// sockets there. A visitor that was connected nowhere, or whose node died, gets the
// message with the history of its next welcome, as on a single node.
type Cluster interface {
	// Endpoint answers web chat connection id and a sink that reaches its actor
	// wherever it runs (actors.Connections.Sink). An engine.Error with
	// ErrWappNotInitialized or ErrNoWappFound (no such connection, or not a web
	// chat one) refuses the visitor with CloseNotInitialized; any other error with
	// ERR_UNAVAILABLE and CloseGoingAway (the widget retries).
	Endpoint(ctx context.Context, id engine.ID) (engine.Connection, engine.ChannelSink, error)
	// Publish hands d to every node's Server.Deliver, this one's included. It returns
	// once the message is handed to the bus; delivery is at most once.
	Publish(ctx context.Context, d Delivery) error
}

// Delivery is an attendant's message for the sockets of one visitor, on whichever
// node they are.
type Delivery struct {
	ConnectionID engine.ID
	Visitor      string          // visitor id (without "webchat:")
	ID           string          // the message frame's id: "wc-out:<messageId>", or the client id of an echo
	Frame        json.RawMessage // the message frame, a JSON object
	// Echo marks the visitor's own message, acknowledged on the node Origin names,
	// for the visitor's tabs on the other nodes. Nodes no longer publish echoes (the
	// widget's tabs tell each other: doc.go, "Tabs"); one from a node of an earlier
	// release, during a rolling upgrade, is still delivered, and the widget shows
	// each id once.
	Echo   bool
	Origin string
	// Stop ends the connection's visitors on every node (its channel stopped): their
	// sockets close with CloseNotInitialized and the next visitor looks the connection
	// up again. A stop carries no visitor, id or frame.
	Stop bool
}

// maxDelivery bounds an encoded Delivery: a frame holds at most a 4096-character
// body (up to 4 bytes each, escaped up to 6) plus media.
const maxDelivery = 64 << 10

// MarshalDelivery encodes d for the bus.
func MarshalDelivery(d Delivery) ([]byte, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	return json.Marshal(deliveryWire{C: d.ConnectionID, V: d.Visitor, ID: d.ID, F: d.Frame, E: d.Echo, O: d.Origin, S: d.Stop})
}

// UnmarshalDelivery decodes what MarshalDelivery encoded; anything else is an error.
func UnmarshalDelivery(b []byte) (Delivery, error) {
	if len(b) > maxDelivery {
		return Delivery{}, errors.New("webchat delivery: too large")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var w deliveryWire
	if err := dec.Decode(&w); err != nil {
		return Delivery{}, fmt.Errorf("webchat delivery: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF { // anything after the object, "}" and "]" included
		return Delivery{}, errors.New("webchat delivery: trailing data")
	}
	d := Delivery{ConnectionID: w.C, Visitor: w.V, ID: w.ID, Frame: w.F, Echo: w.E, Origin: w.O, Stop: w.S}
	if err := d.check(); err != nil {
		return Delivery{}, err
	}
	return d, nil
}

type deliveryWire struct {
	C  int64           `json:"c"`
	V  string          `json:"v"`
	ID string          `json:"id"`
	F  json.RawMessage `json:"f,omitempty"`
	E  bool            `json:"e,omitempty"`
	O  string          `json:"o,omitempty"`
	S  bool            `json:"s,omitempty"`
}

func (d Delivery) check() error {
	switch {
	case d.ConnectionID <= 0:
		return errors.New("webchat delivery: connection id must be positive")
	case d.Stop:
		if d.Visitor != "" || d.ID != "" || len(d.Frame) != 0 || d.Echo || d.Origin != "" {
			return errors.New("webchat delivery: a stop carries nothing else")
		}
		return nil
	case !validClientID(d.Visitor):
		return errors.New("webchat delivery: bad visitor id")
	case !d.Echo && (!strings.HasPrefix(d.ID, "wc-out:") || !validOutboundID(d.ID[len("wc-out:"):])):
		return errors.New("webchat delivery: bad message id")
	case d.Echo && (!validClientID(d.ID) || !validClientID(d.Origin)):
		return errors.New("webchat delivery: bad echo id or origin")
	case !d.Echo && d.Origin != "":
		return errors.New("webchat delivery: origin without echo")
	case len(d.Frame) < 2 || d.Frame[0] != '{' || !json.Valid(d.Frame):
		return errors.New("webchat delivery: frame is not a JSON object")
	}
	return nil
}

func validOutboundID(s string) bool {
	id, err := strconv.ParseInt(s, 10, 64)
	return err == nil && id > 0 && strconv.FormatInt(id, 10) == s
}

// Deliver hands a Delivery from the bus to the visitor's sockets on this node, if
// any; a stop closes the sockets of the connection's visitors here. It never blocks
// on a socket.
func (s *Server) Deliver(d Delivery) {
	s.mu.Lock()
	ep := s.remotes[d.ConnectionID]
	if d.Stop && ep != nil {
		delete(s.remotes, d.ConnectionID)
	}
	s.mu.Unlock()
	if ep == nil {
		return
	}
	if d.Stop {
		s.stop(ep)
		return
	}
	sockets := s.socketsOf(ep, d.Visitor)
	if len(sockets) == 0 {
		return
	}
	frame := textFrame(d.Frame)
	for _, sk := range sockets {
		if !d.Echo {
			sk.remember(d.ID)
		}
		sk.send(frame)
	}
}

// remoteEndpoint is the endpoint visitors of connection id attach to in cluster
// mode: created on the first visitor from Cluster.Endpoint, kept until Shutdown.
func (s *Server) remoteEndpoint(ctx context.Context, id engine.ID) (*endpoint, error) {
	s.mu.Lock()
	ep := s.remotes[id]
	s.mu.Unlock()
	if ep != nil {
		return ep, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.SinkTimeout)
	defer cancel()
	conn, sink, err := s.cfg.Cluster.Endpoint(ctx, id)
	if err != nil {
		return nil, err
	}
	if conn.ID != id || conn.Channel != engine.ChannelSocket || sink == nil {
		return nil, engine.E(engine.ErrWappNotInitialized)
	}
	ep = &endpoint{
		conn:     conn,
		sink:     sink,
		log:      s.log.With().Int64("conn_id", conn.ID).Int64("tenant", conn.CompanyID).Bool("remote", true).Logger(),
		visitors: make(map[string]*visitor),
		sweepAt:  minSweep,
	}
	ep.ctx, ep.cancel = context.WithCancel(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		ep.cancel()
		return nil, ErrClosed
	}
	if old := s.remotes[id]; old != nil { // another visitor got there first
		ep.cancel()
		return old, nil
	}
	s.remotes[id] = ep
	return ep, nil
}
