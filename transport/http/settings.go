package httpapi

import (
	"fmt"
	"net/http"

	"atende/engine"
)

// settingEvent is the payload of the realtime "settings" event.
type settingEvent struct {
	Action  string         `json:"action"` // update
	Setting engine.Setting `json:"setting"`
}

// listSettings: GET /settings → [{key, value}] for every known key (defaults filled
// in). Every profile may read them: the layout needs sideMenu.
func (s *Server) listSettings(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	list, err := s.deps.Settings.List(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("list settings: %w", err)
	}
	writeJSON(w, http.StatusOK, withWhaticketKeys(list))
	return nil
}

// settingUserAPIToken is the key whaticket's settings page shows read-only as "Token
// Api": the bearer token of its message-sending API. Atende has no such API, so the
// key is listed with an empty value (the page renders an empty field instead of
// breaking) and cannot be set (PUT answers ERR_NO_SETTING_FOUND).
const settingUserAPIToken = "userApiToken"

// withWhaticketKeys appends the keys whaticket's settings page reads that Atende does
// not keep.
func withWhaticketKeys(list []engine.Setting) []engine.Setting {
	for _, st := range list {
		if st.Key == settingUserAPIToken {
			return list
		}
	}
	return append(list, engine.Setting{Key: settingUserAPIToken, Value: ""})
}

// updateSetting: PUT /settings/{key} {value}. Needs settings:manage; an unknown key
// is 404 ERR_NO_SETTING_FOUND, a value other than enabled/disabled 400 ERR_VALIDATION.
func (s *Server) updateSetting(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageSettings); err != nil {
		return err
	}
	var body struct {
		Value string `json:"value"`
	}
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := engine.ValidateSetting(engine.SettingInput{Key: r.PathValue("key"), Value: body.Value})
	if err != nil {
		return err
	}
	st, err := s.deps.Settings.Set(r.Context(), p.CompanyID, in.Key, in.Value)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "settings", settingEvent{Action: "update", Setting: st})
	writeJSON(w, http.StatusOK, st)
	return nil
}
