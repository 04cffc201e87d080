// Package faults holds the tests of flows.Authenticate on real API servers
// that are paused or killed and restarted at each step, and of two runs on
// one pair at once (issue 11). It has no code of its own.
package faults
