package engine

import (
	"slices"
	"sort"
	"testing"
)

// The expected table, written out by hand from spec section 6 (not derived from the
// code under test): action -> profiles allowed.
var wantGrants = map[string][]string{
	// user, userplus and everybody above
	ActTransferWhatsapp:          {"user", "userplus", "superv", "manager", "admin", "super"},
	ActViewScheduleMenu:          {"user", "userplus", "superv", "manager", "admin", "super"},
	ActCreateScheduledMessage:    {"user", "userplus", "superv", "manager", "admin", "super"},
	ActEditOwnScheduledMessage:   {"user", "userplus", "superv", "manager", "admin", "super"},
	ActDeleteOwnScheduledMessage: {"user", "userplus", "superv", "manager", "admin", "super"},
	ActCreateTag:                 {"user", "userplus", "superv", "manager", "admin", "super"},
	ActManageQuickAnswers:        {"user", "userplus", "superv", "manager", "admin", "super"},
	ActUseChat:                   {"user", "userplus", "superv", "manager", "admin", "super"},
	// superv, manager and upward
	ActViewSupervMenu:          {"superv", "manager", "admin", "super"},
	ActCloseAllTickets:         {"superv", "manager", "admin", "super"},
	ActShowAllTickets:          {"superv", "manager", "admin", "super"},
	ActEditUserProfile:         {"superv", "manager", "admin", "super"},
	ActViewNotifications:       {"user", "userplus", "superv", "manager", "admin", "super"},
	ActManageTags:              {"superv", "manager", "admin", "super"},
	ActManageUsers:             {"superv", "manager", "admin", "super"},
	ActManageQueues:            {"superv", "manager", "admin", "super"},
	ActManageConnections:       {"superv", "manager", "admin", "super"},
	ActManageAnnouncements:     {"superv", "manager", "admin", "super"},
	ActManageAllBookings:       {"superv", "manager", "admin", "super"},
	ActManagePlaces:            {"superv", "manager", "admin", "super"},
	ActViewDashboard:           {"superv", "manager", "admin", "super"},
	ActViewClientMap:           {"superv", "manager", "admin", "super"},
	ActManageFlows:             {"superv", "manager", "admin", "super"},
	ActManageScheduledMessages: {"superv", "manager", "admin", "super"},
	// the 'super' menu item: not admin
	ActViewSuperMenu: {"superv", "manager", "super"},
	// admin and super
	ActImportTickets:   {"admin", "super"},
	ActViewAdminMenu:   {"admin", "super"},
	ActEditUserQueues:  {"admin", "super"},
	ActDeleteTicket:    {"admin", "super"},
	ActDeleteContact:   {"admin", "super"},
	ActManageSettings:  {"admin", "super"},
	ActManageCatalog:   {"admin", "super"},
	ActViewCluster:     {"admin", "super"},
	ActManageAPITokens: {"admin", "super"},
	ActManageBots:      {"admin", "super"},
	ActManageAI:        {"admin", "super"},
	ActManageGroups:    {"admin", "super"},
	// the hosting operator only
	ActManageTenants: {"super"},
}

var allProfiles = []string{"user", "userplus", "superv", "manager", "admin", "super"}

func TestPermissionTable(t *testing.T) {
	for action, allowed := range wantGrants {
		for _, profile := range allProfiles {
			want := slices.Contains(allowed, profile)
			t.Run(profile+"/"+action, func(t *testing.T) {
				if got := Can(profile, action); got != want {
					t.Errorf("Can(%q, %q) = %v, want %v", profile, action, got, want)
				}
				if got := (Principal{UserID: 1, CompanyID: 1, Profile: profile}).Can(action); got != want {
					t.Errorf("Principal.Can = %v, want %v", got, want)
				}
			})
		}
	}
}

func TestPermissionUnknownProfile(t *testing.T) {
	for _, profile := range []string{"", "Admin", "SUPER", "root", "super ", "dashboard", "finance", "support"} {
		t.Run(profile, func(t *testing.T) {
			for _, action := range AllActions() {
				if Can(profile, action) {
					t.Errorf("unknown profile %q may %s", profile, action)
				}
			}
			if a := Actions(profile); a != nil {
				t.Errorf("Actions(%q) = %v, want nil", profile, a)
			}
			if IsProfile(profile) {
				t.Errorf("IsProfile(%q) = true", profile)
			}
		})
	}
}

func TestPermissionUnknownAction(t *testing.T) {
	for _, profile := range allProfiles {
		if Can(profile, "ticket-options:everything") || Can(profile, "") {
			t.Errorf("%s may do an unknown action", profile)
		}
	}
}

func TestAllActionsMatchesExpectedTable(t *testing.T) {
	var want []string
	for a := range wantGrants {
		want = append(want, a)
	}
	sort.Strings(want)
	if got := AllActions(); !slices.Equal(got, want) {
		t.Errorf("AllActions() = %v\nwant %v", got, want)
	}
}

func TestActionsSortedAndConsistent(t *testing.T) {
	for _, profile := range allProfiles {
		t.Run(profile, func(t *testing.T) {
			got := Actions(profile)
			if !sort.StringsAreSorted(got) {
				t.Errorf("not sorted: %v", got)
			}
			for _, a := range AllActions() {
				if slices.Contains(got, a) != Can(profile, a) {
					t.Errorf("Actions and Can disagree on %s", a)
				}
			}
			got[0] = "mutated" // a caller's copy must not reach the table
			if Actions(profile)[0] == "mutated" {
				t.Error("Actions shares the table")
			}
		})
	}
	if !slices.Equal(Actions("user"), Actions("userplus")) || !slices.Equal(Actions("superv"), Actions("manager")) {
		t.Error("paired profiles differ")
	}
	if !slices.Contains(Actions("super"), ActViewSuperMenu) || slices.Contains(Actions("admin"), ActViewSuperMenu) {
		t.Error("super menu item")
	}
	if len(PermissionTable()) != 6 {
		t.Errorf("PermissionTable has %d rows", len(PermissionTable()))
	}
}

func TestPrincipal(t *testing.T) {
	p := Principal{UserID: 7, CompanyID: 1, Profile: ProfileUser, QueueIDs: []ID{3, 5}}
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"in queue 3", p.InQueue(3), true},
		{"in queue 5", p.InQueue(5), true},
		{"not in queue 4", p.InQueue(4), false},
		{"no queue is no queue", p.InQueue(0), false},
		{"valid", p.Valid(), true},
		{"no user", Principal{CompanyID: 1, Profile: ProfileUser}.Valid(), false},
		{"no company", Principal{UserID: 1, Profile: ProfileUser}.Valid(), false},
		{"unknown profile", Principal{UserID: 1, CompanyID: 1, Profile: "boss"}.Valid(), false},
		{"can schedule", p.Can(ActViewScheduleMenu), true},
		{"cannot delete", p.Can(ActDeleteTicket), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}
