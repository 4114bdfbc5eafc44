package graphfake_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"atende/transport/channel/meta/graphfake"
)

// A user profile asked for some fields answers those and the id, as Graph does:
// the Messenger adapter asks first_name,last_name,profile_pic of a page-scoped id.
func TestProfileAnswersTheFieldsAskedFor(t *testing.T) {
	f := graphfake.New("page-token")
	defer f.Close()
	f.Lock()
	f.Objects["24000000000001"] = map[string]any{"id": "24000000000001", "first_name": "Joana", "last_name": "Lima",
		"profile_pic": "https://cdn/p.jpg", "locale": "pt_BR"}
	f.Unlock()
	for _, tc := range []struct {
		query string
		want  map[string]any
	}{
		{"?fields=first_name,last_name,profile_pic", map[string]any{"id": "24000000000001", "first_name": "Joana", "last_name": "Lima", "profile_pic": "https://cdn/p.jpg"}},
		{"?fields=name,username,profile_pic", map[string]any{"id": "24000000000001", "profile_pic": "https://cdn/p.jpg"}},
		{"", map[string]any{"id": "24000000000001", "first_name": "Joana", "last_name": "Lima", "profile_pic": "https://cdn/p.jpg", "locale": "pt_BR"}},
	} {
		req, _ := http.NewRequest(http.MethodGet, f.URL()+"/"+graphfake.Version+"/24000000000001"+tc.query, nil)
		req.Header.Set("Authorization", "Bearer page-token")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		err = json.NewDecoder(res.Body).Decode(&got)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK || len(got) != len(tc.want) {
			t.Fatalf("%s: %d %v %v", tc.query, res.StatusCode, got, err)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", tc.query, k, got[k], v)
			}
		}
	}
}
