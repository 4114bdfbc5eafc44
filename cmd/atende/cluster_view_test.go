package main

import (
	"net/http"
	"testing"
	"time"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	httpapi "atende/transport/http"
)

// TestClusterViewSingleNode: the app on one node lists itself, alive, with its
// version and actor counts; the super logs in with the demo's login and manages
// tenants; an attendant is refused both routes.
func TestClusterViewSingleNode(t *testing.T) {
	ta := startApp(t, testConfig(t, dbtest.URL(t, db.SQLite)))
	admin := login(t, ta.base, "admin@atende.local", "admin123")
	var v httpapi.ClusterView
	admin.call("GET", "/cluster", nil, http.StatusOK, &v)
	if v.Mode != "single" || len(v.Members) != 1 {
		t.Fatalf("cluster %+v", v)
	}
	m := v.Members[0]
	if !m.Self || m.State != "alive" || m.Version != version || m.Actors["connection"] < 1 || m.ID != v.Node {
		t.Fatalf("member %+v", m)
	}
	super := login(t, ta.base, "super@atende.local", "super123")
	var list struct {
		Tenants []map[string]any `json:"tenants"`
	}
	super.call("GET", "/tenants", nil, http.StatusOK, &list)
	if len(list.Tenants) != 1 || list.Tenants[0]["name"] != "Atende Demo" {
		t.Fatalf("tenants %v", list.Tenants)
	}
	ana := login(t, ta.base, "ana@atende.local", "atende123")
	ana.call("GET", "/cluster", nil, http.StatusForbidden, nil)
	ana.call("GET", "/tenants", nil, http.StatusForbidden, nil)
}

// TestClusterViewTwoNodes: each node of a two-node cluster lists both members alive,
// itself marked; once one is killed the survivor lists only itself.
func TestClusterViewTwoNodes(t *testing.T) {
	c := newCluster(t)
	a := c.start("127.0.0.1")
	b := c.start("127.0.0.2")
	c.waitMembers(2)
	for _, n := range []*cnode{a, b} {
		adm := login(t, n.base, "admin@atende.local", "admin123")
		var v httpapi.ClusterView
		waitLong(t, 20*time.Second, "both members alive on "+n.name, func() bool {
			adm.call("GET", "/cluster", nil, http.StatusOK, &v)
			alive := 0
			for _, m := range v.Members {
				if m.State == "alive" && m.Version == version {
					alive++
				}
			}
			return v.Mode == "cluster" && len(v.Members) == 2 && alive == 2
		})
		self := 0
		for _, m := range v.Members {
			if m.Self {
				self++
				if m.ID != v.Node || m.Node == "" {
					t.Fatalf("self member %+v of %+v", m, v)
				}
			}
		}
		if self != 1 {
			t.Fatalf("%d members marked self: %+v", self, v)
		}
	}
	c.kill9(b)
	adm := login(t, a.base, "admin@atende.local", "admin123")
	waitLong(t, 30*time.Second, "the survivor lists itself alone", func() bool {
		var v httpapi.ClusterView
		adm.call("GET", "/cluster", nil, http.StatusOK, &v)
		return len(v.Members) == 1 && v.Members[0].Self && v.Members[0].State == "alive"
	})
}
