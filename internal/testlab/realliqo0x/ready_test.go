package realliqo0x

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The controller-manager is ready once its ForeignCluster controller's
// workers start; the crd-replicator once its only controller's do (lines as
// Liqo v0.10.1 prints them); other controllers' lines are not enough.
func TestReadyLines(t *testing.T) {
	assert.True(t, managerReady(`I1123 13:52:07.171022   24939 controller.go:220] "Starting workers" controller="foreigncluster" controllerGroup="discovery.liqo.io" controllerKind="ForeignCluster" worker count=1`))
	assert.False(t, managerReady(`I1123 13:52:07.148403   24939 controller.go:220] "Starting workers" controller="resourcerequest" controllerGroup="discovery.liqo.io" controllerKind="ResourceRequest" worker count=1`))
	assert.False(t, managerReady(`I1123 13:52:07.100000   24939 controller.go:185] "Starting Controller" controller="foreigncluster" controllerGroup="discovery.liqo.io" controllerKind="ForeignCluster"`))
	assert.True(t, replicatorReady(`I1123 13:52:11.100000   24980 controller.go:220] "Starting workers" controller="crdReplicator-operator" controllerGroup="discovery.liqo.io" controllerKind="ForeignCluster" worker count=1`))
	assert.False(t, replicatorReady(`I1123 13:52:07.171022   24939 controller.go:220] "Starting workers" controller="foreigncluster" controllerGroup="discovery.liqo.io" controllerKind="ForeignCluster" worker count=1`))
}
