package realliqov1

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The crd-replicator is ready once its Secret controller's workers start
// (lines as Liqo v1.2.0's crd-replicator prints them); the ForeignCluster
// controller's, or the Secret controller's earlier lines, are not enough.
func TestReplicatorReady(t *testing.T) {
	assert.True(t, replicatorReady(`I1123 13:05:18.887646   29367 controller.go:306] "Starting workers" controller="secret_crdreplicator" controllerGroup="" controllerKind="Secret" worker count=1`))
	assert.False(t, replicatorReady(`I1123 13:05:18.878779   29367 controller.go:306] "Starting workers" controller="foreignclusterstate_crdreplicator" controllerGroup="core.liqo.io" controllerKind="ForeignCluster" worker count=1`))
	assert.False(t, replicatorReady(`I1123 13:05:18.887508   29367 controller.go:303] "Starting Controller" controller="secret_crdreplicator" controllerGroup="" controllerKind="Secret"`))
	assert.False(t, replicatorReady(`I1123 13:05:17.769643   29367 manager.go:85] Local informer factory synced correctly`))
}
