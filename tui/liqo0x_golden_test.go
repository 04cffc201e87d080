package tui

import "testing"

// The Liqo 0.x provider's hand-off: the warning of a provider without
// authentication on top, the peer info with its token masked, the liqoctl
// equivalent masked, the consumer's next commands.
func TestGoldenPeerInfoHandoff(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		f := liqo0xProvider(newFake(), "")
		f.liqo0x.authDisabled = true
		h := newHarness(t, f, providerOnly())
		h.key("enter")
		screenIs[*handoffScreen](t, h)
		return h.m
	})
}
