package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLiqoV1CapabilitiesOf(t *testing.T) {
	for version, consumerDriven := range map[string]bool{
		"v1.0.3": true, "v1.1.2": true, "v1.1.0-rc.1": true,
		"v1.2.0": false, "v1.2.1": false, "v1.3.0": false, "v2.0.0": false,
		"": false, "main": false, // unknown: the newest behaviour
	} {
		got := LiqoV1CapabilitiesOf(version)
		assert.Equal(t, consumerDriven, got.ConsumerDrivenRenewal, version)
		assert.Equal(t, version, got.Version)
	}
}
