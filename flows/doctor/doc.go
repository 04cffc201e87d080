// Package doctor is `liqo-auth-tui doctor` and the wizard's "diagnose":
// one list of ✓/✗ lines for a cluster and its peerings, where every ✗ says
// its cause in one line and the exact command that fixes it; some fixes
// doctor applies itself (Repair, `doctor --fix`).
//
// It reads the clusters through the read model of peerings
// (flows/peerings: its lists, or the Snapshot an overview holds) and sees
// each peering as one pair of sides (pair.go). It builds on root flows
// only for what it shares with the front-ends (flows.ClusterRef) and to resume
// a handshake (flows.Authenticate); root flows never imports it: the
// front-ends call it directly.
package doctor
