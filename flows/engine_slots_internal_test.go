package flows

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Runs at once on one Lease get their own identities; a run after another
// reuses the freed one (so it takes over a Lease left unreleased); other
// Leases count apart.
func TestLeaseSlots(t *testing.T) {
	var s slotSet
	a, b := s.take("x/consumer"), s.take("x/consumer")
	assert.Equal(t, []int{0, 1}, []int{a, b}, "two runs at once: two identities")
	assert.Equal(t, 0, s.take("x/provider"), "another Lease counts apart")
	s.free("x/consumer", a)
	assert.Equal(t, 0, s.take("x/consumer"), "the next run reuses the freed identity")
	assert.Equal(t, 2, s.take("x/consumer"))
}
