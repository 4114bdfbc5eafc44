//go:build race

package campaign_test

// raceOn: the race detector slows the pure-Go SQLite driver about thirtyfold.
const raceOn = true
