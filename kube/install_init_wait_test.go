package kube

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Right after its CRDs were established, init holds on until the API
// server no longer holds creates (it would stop here on a cancelled
// context); CRDs established long ago cost no wait.
func TestInitWaitsOutTheCreateHoldOfFreshCRDs(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, waitCreatesServed(cancelled, time.Now()), context.Canceled, "just established: it waits")
	assert.NoError(t, waitCreatesServed(cancelled, time.Now().Add(-time.Hour)), "established long ago: no wait")
	assert.NoError(t, waitCreatesServed(cancelled, time.Time{}), "nothing installed: no wait")
}
