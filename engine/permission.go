package engine

import (
	"slices"
	"sort"
)

// Action names of the permission table. The first block are the names the web app
// checks (spec section 6, in the spec's "area:verb" style); the second block are
// server-side actions over reference data that the spec leaves unnamed.
const (
	// Operation (every known profile).
	ActTransferWhatsapp          = "ticket-options:transferWhatsapp" // choose a connection in the transfer dialog
	ActViewScheduleMenu          = "drawer-schedule-items:view"      // schedule menu
	ActCreateScheduledMessage    = "scheduled-messages:create"       // add a scheduled message
	ActEditOwnScheduledMessage   = "scheduled-messages:editOwn"      // edit own scheduled messages
	ActDeleteOwnScheduledMessage = "scheduled-messages:deleteOwn"    // delete own scheduled messages

	// Supervision (superv, manager, and upward).
	ActViewSupervMenu    = "drawer-superv-items:view" // supervision section of the drawer
	ActCloseAllTickets   = "tickets-manager:closeAll" // close all tickets
	ActShowAllTickets    = "tickets-manager:showall"  // show-all toggle, attendant filter, act on any ticket
	ActEditUserProfile   = "user-modal:editProfile"   // id and profile fields of the user modal
	ActViewNotifications = "notifications:view"       // notification bell
	ActViewSuperMenu     = "drawer-items:super"       // 'super' section of the drawer
	// Edit and delete anybody's scheduled messages and agenda tasks of the tenant.
	ActManageScheduledMessages = "scheduled-messages:manageAll"

	// Administration (admin, super).
	ActImportTickets  = "tickets-manager:import"      // import tickets
	ActViewAdminMenu  = "drawer-admin-items:view"     // business section; also the sign-message toggle
	ActEditUserQueues = "user-modal:editQueues"       // queue and default-connection selectors
	ActDeleteTicket   = "ticket-options:deleteTicket" // delete-ticket button
	ActDeleteContact  = "contacts-page:deleteContact" // delete a contact
)

// Server-side actions over reference data. Reading reference data (lists of users,
// queues, tags, quick answers, connections, settings) needs no action: every known
// profile of the tenant may read it. Writing needs:
//
//   - tags:create — POST /tags. Granted to every known profile, because the tag picker
//     of the chat screen creates a typed tag on the spot (spec section 4, Other).
//   - tags:manage — edit and delete tags (the Tags page sits in the supervision section).
//   - quick-answers:manage — create, edit, delete quick answers. Granted to every known
//     profile: the quick answers page sits in the operation section of the drawer that
//     every profile sees.
//   - users:manage, queues:manage, connections:manage — the Users, Queues and Connections
//     pages sit in the supervision section: superv and upward.
//   - catalog:manage — create, edit, delete catalog items and categories. The catalog
//     and categories pages sit in the business section (drawer-admin-items:view):
//     admin and super. Every profile reads the catalog (the composer's '#' and '@').
//   - settings:manage — change settings: admin and super only, settings change the
//     whole tenant.
//   - announcements:manage — create, edit, delete announcements (the Announcements page
//     sits in the supervision section): superv and upward. Every profile reads them.
//   - notifications:view — the bell and its sound. The spec lists it for superv and
//     upward; it is granted to every known profile because whaticket's client joins
//     the notification room from every list, attendants included. What reaches an
//     attendant there is held to the tickets they may see (their queues, no queue,
//     their own) by the realtime visibility filter.
//   - agenda:manageAll — book for another attendant and move, conclude or cancel
//     another attendant's kanban card: superv and upward. Every profile with the
//     schedule menu reads the calendar and the board, books for itself and moves its
//     own cards.
//   - places:manage — create and delete the booking scheduler's places: superv and
//     upward, like users:manage, which edits another user's positions and slots.
const (
	ActCreateTag           = "tags:create"
	ActManageTags          = "tags:manage"
	ActManageQuickAnswers  = "quick-answers:manage"
	ActManageUsers         = "users:manage"
	ActManageQueues        = "queues:manage"
	ActManageConnections   = "connections:manage"
	ActManageSettings      = "settings:manage"
	ActManageAnnouncements = "announcements:manage"
	ActManageAllBookings   = "agenda:manageAll"
	ActManagePlaces        = "places:manage"
	ActManageCatalog       = "catalog:manage"
	// tenants:manage — list, create, disable and enable tenants (the /Super page):
	// the super profile only. Every other route stays scoped to the caller's own
	// tenant, a super's included.
	ActManageTenants = "tenants:manage"
	// cluster:view — GET /cluster, the members of the actor cluster and their
	// actor counts (the /Support page): admin and super.
	ActViewCluster = "cluster:view"
	// dashboard:view — the dashboard (/tableaux) and its CSV export: the dashboard sits
	// in the supervision section of the drawer, so superv and upward. Its numbers cover
	// every queue and attendant of the tenant.
	ActViewDashboard = "dashboard:view"
	// ActUseChat: the internal chat (the drawer's operation section and the top bar's
	// popover), granted to every known profile; within it only a chat's participants
	// read and write it, and only its owner edits or deletes it (engine/chat.go).
	ActUseChat       = "chats:use"
	ActViewClientMap = "client-map:view"
	// api-tokens:manage — list, create and revoke the tenant's messaging-API tokens
	// (the /MessagingAPI page, in the business section of the drawer): admin and
	// super. A token sends messages as the tenant, so it is an administrator's call.
	ActManageAPITokens = "api-tokens:manage"
	// bots:manage — read and change the reception-menu bot levels (the /Bots page,
	// in the business section of the drawer): admin and super.
	ActManageBots = "bots:manage"
	// flows:manage — the Bizflow page (/BizFlow): list, create, edit, delete flows
	// and choose where they start. It sits in the supervision section: superv and
	// upward.
	ActManageFlows = "flows:manage"
	// ai:manage — the tenant's AI endpoint (/iaconfig) and NLP intents (/NLPConfig):
	// admin and super, like settings (the pages sit in the business section). Using
	// the AI from the composer needs no action beyond working on the ticket.
	ActManageAI = "ai:manage"
	// groups:manage — the sequential WhatsApp groups (/Groups): create batches and
	// follow their progress. Creating groups in the tenant's WhatsApp name is an
	// administrator's call: admin and super.
	ActManageGroups = "groups:manage"
)

// The grants, as data. Each profile's row is the union of groups; admin drops the
// 'super' menu item that superv and manager have (spec section 6).
var (
	operationGrants = []string{
		ActTransferWhatsapp,
		ActViewScheduleMenu,
		ActCreateScheduledMessage,
		ActEditOwnScheduledMessage,
		ActDeleteOwnScheduledMessage,
		ActCreateTag,
		ActManageQuickAnswers,
		ActViewNotifications,
		ActUseChat,
	}
	supervisionGrants = []string{
		ActViewSupervMenu,
		ActCloseAllTickets,
		ActShowAllTickets,
		ActEditUserProfile,
		ActViewSuperMenu,
		ActManageScheduledMessages,
		ActManageTags,
		ActManageUsers,
		ActManageQueues,
		ActManageConnections,
		ActManageAnnouncements,
		ActManageAllBookings,
		ActManagePlaces,
		ActViewDashboard,
		ActViewClientMap,
		ActManageFlows,
	}
	administrationGrants = []string{
		ActImportTickets,
		ActViewAdminMenu,
		ActEditUserQueues,
		ActDeleteTicket,
		ActDeleteContact,
		ActManageSettings,
		ActManageCatalog,
		ActViewCluster,
		ActManageAPITokens,
		ActManageBots,
		ActManageAI,
		ActManageGroups,
	}
	// Hosting operator: the super profile only.
	superGrants = []string{
		ActManageTenants,
	}
)

// permissionTable maps each profile to the set of actions it may perform. Built once
// from the groups above; never modified afterwards.
var permissionTable = map[string]map[string]bool{
	ProfileUser:     grantSet(operationGrants),
	ProfileUserPlus: grantSet(operationGrants),
	ProfileSuperv:   grantSet(operationGrants, supervisionGrants),
	ProfileManager:  grantSet(operationGrants, supervisionGrants),
	ProfileAdmin:    without(grantSet(operationGrants, supervisionGrants, administrationGrants), ActViewSuperMenu),
	ProfileSuper:    grantSet(operationGrants, supervisionGrants, administrationGrants, superGrants),
}

func grantSet(groups ...[]string) map[string]bool {
	set := make(map[string]bool)
	for _, g := range groups {
		for _, a := range g {
			set[a] = true
		}
	}
	return set
}

func without(set map[string]bool, action string) map[string]bool {
	delete(set, action)
	return set
}

// Can reports whether profile may perform action. An unknown profile, or an unknown
// action, is allowed nothing.
func Can(profile, action string) bool {
	return permissionTable[profile][action]
}

// Actions lists the actions profile may perform, sorted; nil for an unknown profile.
func Actions(profile string) []string {
	set, ok := permissionTable[profile]
	if !ok {
		return nil
	}
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Profiles lists the six known profiles, from least to most privileged.
func Profiles() []string {
	return []string{ProfileUser, ProfileUserPlus, ProfileSuperv, ProfileManager, ProfileAdmin, ProfileSuper}
}

// IsProfile reports whether p is one of the six known profiles.
func IsProfile(p string) bool {
	return slices.Contains(Profiles(), p)
}

// AllActions lists every action name of the table, sorted.
func AllActions() []string {
	set := grantSet(operationGrants, supervisionGrants, administrationGrants, superGrants)
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// PermissionTable is the whole table as profile -> sorted actions, the shape the web
// app reads from web/src/app/permissions.json (kept equal by a golden test).
func PermissionTable() map[string][]string {
	out := make(map[string][]string, len(permissionTable))
	for p := range permissionTable {
		out[p] = Actions(p)
	}
	return out
}
