package readmodel

// ForceSearchPlan makes q read searches by walking the list ("walk") or from the
// matching set ("driven") whatever the statistics say, so tests cover both plans.
func ForceSearchPlan(q *Queries, plan string) {
	switch plan {
	case "walk":
		q.searchMode = searchModeWalk
	case "driven":
		q.searchMode = searchModeDriven
	default:
		q.searchMode = searchModeAuto
	}
}
