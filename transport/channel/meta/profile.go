package meta

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"atende/engine"
)

// maxProfiles bounds the profile cache; it is emptied when full.
const maxProfiles = 10000

// profile is a cached answer; a failed lookup is cached empty until retry.
type profile struct {
	name, pic string
	retry     time.Time // zero for an answer; else when a failed lookup may be tried again
}

// profiles caches customers' names and pictures by provider and scoped id. Safe for
// concurrent use.
type profiles struct {
	mu sync.Mutex // guards m
	m  map[string]profile
}

// lookup returns the customer's display name and picture: Messenger's User Profile
// API (first_name, last_name, profile_pic) or Instagram's (name, username,
// profile_pic), with the page token. A failure answers empty values: a name is a
// nicety, never a reason to refuse a delivery. The lookup has its own short budget
// (Config.ProfileTimeout) so a slow Graph API leaves the delivery its time, and a
// failure is remembered for Config.ProfileRetry so every message of that customer
// does not wait for it again.
func (s *Service) lookup(ctx context.Context, cred engine.ChannelCredentials, scopedID string) profile {
	key := cred.Provider + "/" + scopedID
	now := time.Now()
	s.profiles.mu.Lock()
	p, ok := s.profiles.m[key]
	s.profiles.mu.Unlock()
	if ok && (p.retry.IsZero() || now.Before(p.retry)) {
		return profile{name: p.name, pic: p.pic}
	}
	p = profile{}
	fields := "first_name,last_name,profile_pic"
	if cred.Provider == engine.ProviderInstagram {
		fields = "name,username,profile_pic"
	}
	var ans struct {
		FirstName  string `json:"first_name"`
		LastName   string `json:"last_name"`
		Name       string `json:"name"`
		Username   string `json:"username"`
		ProfilePic string `json:"profile_pic"`
	}
	lctx, cancel := context.WithTimeout(ctx, s.cfg.ProfileTimeout)
	err := s.graph.JSON(lctx, http.MethodGet, "/"+url.PathEscape(scopedID), url.Values{"fields": {fields}}, cred.Token, nil, &ans)
	cancel()
	if err != nil {
		s.log.Debug().Err(err).Int64("conn_id", cred.ConnectionID).Msg("customer profile unavailable")
		if ctx.Err() == nil { // the delivery's own end is not the profile's failure
			s.remember(key, profile{retry: time.Now().Add(s.cfg.ProfileRetry)})
		}
		return profile{}
	}
	p.name = strings.TrimSpace(ans.FirstName + " " + ans.LastName)
	if p.name == "" {
		p.name = ans.Name
	}
	if p.name == "" {
		p.name = ans.Username
	}
	p.pic = ans.ProfilePic
	s.remember(key, p)
	return p
}

func (s *Service) remember(key string, p profile) {
	s.profiles.mu.Lock()
	defer s.profiles.mu.Unlock()
	if s.profiles.m == nil || len(s.profiles.m) >= maxProfiles {
		s.profiles.m = make(map[string]profile)
	}
	s.profiles.m[key] = p
}
