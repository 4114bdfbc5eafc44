package httpapi

import (
	"sort"

	"atende/engine"
)

// RefDeps holds the reference-data stores (contacts, queues, tags, quick answers),
// whose interfaces live in engine/store_ref.go. It is embedded in Deps, so deps.Contacts,
// deps.Queues… are set directly. cmd/atende must set all four; a nil
// one is tolerated (so that tests of other routes need not build them) but its routes
// answer 503 ERR_UNAVAILABLE, and New logs a warning naming it.
//
// A new reference store adds its field here, its routes in routes_ref.go (refRoutes)
// and, when required, its check in unwiredRefDeps.
type RefDeps struct {
	Contacts     engine.ContactStore
	Queues       engine.QueueStore
	Tags         engine.TagStore
	QuickAnswers engine.QuickAnswerStore
	// Announcements keeps the announcements (announcements.go); nil answers 503.
	Announcements engine.AnnouncementStore
	// Catalog keeps the catalog items and categories (catalog.go); nil answers 503.
	Catalog engine.CatalogStore
	// Schedules keeps scheduled messages and agenda tasks (schedules.go); nil
	// answers 503.
	Schedules engine.ScheduleStore
	// Presence is who is online (presence.go: GET /presence); nil answers 503.
	Presence engine.Presence
	// Bookings keeps the agenda's bookings and kanban columns (bookings.go); nil
	// answers 503.
	Bookings engine.BookingStore
	// Slots keeps the booking scheduler's places, positions and slots
	// (slots.go); nil answers 503.
	Slots engine.SlotStore
	// Dashboard answers the dashboard (dashboard.go); nil answers 503.
	Dashboard engine.DashboardQueries
	// WaitPanel reads the wait panel's snapshot (supervision.go); nil answers 503.
	WaitPanel engine.WaitPanelQueries
	// Locations reads the client maps' contacts (maps.go); nil answers 503.
	Locations engine.LocationStore
	// CalendarFeeds keeps the calendar subscription links (calendarfeed.go); nil
	// answers 503.
	CalendarFeeds CalendarFeeds
	// Bots keeps the reception-menu bot levels (bots.go); nil answers 503.
	Bots engine.BotStore
	// Campaigns keeps and runs campaigns and broadcasts (campaigns.go); nil answers
	// 503.
	Campaigns CampaignStore
	// Groups keeps the sequential WhatsApp group batches and counts /groupjoin
	// visitors (groups.go); nil answers 503.
	Groups GroupStore
}

// checkRefDeps names the required RefDeps fields that are nil: none (see RefDeps).
func (d RefDeps) checkRefDeps() (missing []string) { return nil }

// unwiredRefDeps names the RefDeps fields that are nil, sorted.
func (d RefDeps) unwiredRefDeps() (missing []string) {
	for name, ok := range map[string]bool{
		"Contacts":      d.Contacts != nil,
		"Queues":        d.Queues != nil,
		"Tags":          d.Tags != nil,
		"QuickAnswers":  d.QuickAnswers != nil,
		"Announcements": d.Announcements != nil,
		"Presence":      d.Presence != nil,
		"Bookings":      d.Bookings != nil,
		"Slots":         d.Slots != nil,
		"Catalog":       d.Catalog != nil,
		"Dashboard":     d.Dashboard != nil,
		"WaitPanel":     d.WaitPanel != nil,
		"Locations":     d.Locations != nil,
	} {
		if !ok {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	return missing
}
