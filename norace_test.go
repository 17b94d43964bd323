//go:build !race

package tensorpool

const raceEnabled = false
