package readmodel

// ForceWordPlan makes q search words by walking the list ("walk") or from the index
// ("driven") whatever the statistics say, so tests cover both plans.
func ForceWordPlan(q *Queries, plan string) {
	switch plan {
	case "walk":
		q.wordMode = wordModeWalk
	case "driven":
		q.wordMode = wordModeDriven
	default:
		q.wordMode = wordModeAuto
	}
}
