//go:build cluster

package liqo0xlab_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// The lab of this package: "provider" and "consumer" get Liqo v0.10.1's
// CRDs; "provider" runs its auth server, "consumer" its controllers when a
// test peers them. "plain" never gets Liqo: this tool is the 0.x consumer
// there. Tests that authenticate clean up both sides when they end: the
// provider issues one identity per consumer cluster ID.
var testLab = labtest.Lazy("provider", "consumer", "plain")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

// The clusters' Liqo identities, fixed per lab: Install refuses another ID.
const (
	providerID   = "5a0f3f0e-52b8-4d5c-9b4c-1a2b3c4d5e6f"
	providerName = "liqo0x-provider"
	consumerID   = "9c8e7d6f-1b2a-4c3d-8e9f-0a1b2c3d4e5f"
	consumerName = "liqo0x-consumer"
)

// liqo0xContext bounds one test: starting Liqo 0.x's processes on a busy
// 2-CPU machine takes most of labtest.Context's minute by itself.
func liqo0xContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
