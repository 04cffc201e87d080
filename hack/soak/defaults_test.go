package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The default is the 100 consumers asked for where the CPUs carry them,
// and what they carry, said so, where they do not.
func TestDefaultConsumers(t *testing.T) {
	n, why := defaultConsumers(8)
	assert.Equal(t, 100, n)
	assert.Empty(t, why)
	n, why = defaultConsumers(2)
	assert.Equal(t, 41, n)
	assert.Equal(t, "41 consumers: what 2 CPUs carry (100 need about 5 CPUs; --consumers sets it)", why)
	n, _ = defaultConsumers(0)
	assert.Equal(t, 1, n)
}
