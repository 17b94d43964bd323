//go:build race

package tensorpool

const raceEnabled = true
