//go:build !race

package campaign_test

const raceOn = false
