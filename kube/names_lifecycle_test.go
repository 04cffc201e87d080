package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The copy on the provider keeps the local labels but the ownership one, and
// says whose copy it is (§10), as Liqo's crd-replicator does.
func TestReplicaLabels(t *testing.T) {
	local := map[string]string{ReplicationLabel: "true", RemoteIDLabel: "prov", RemoteClusterIDLabel: "prov", OwnershipLabel: "x", "example.com/team": "a"}
	assert.Equal(t, map[string]string{
		"example.com/team": "a", ReplicationLabel: "false", ReplicatedLabel: "true", OriginIDLabel: "cons", RemoteClusterIDLabel: "cons",
		RemoteIDLabel: "prov",
	}, ReplicaLabels(local, "cons"))
	assert.Equal(t, "true", local[ReplicationLabel], "the local labels are not touched")
	assert.Equal(t, "liqo.io/replicated=true,liqo.io/originID=cons", ReplicaSelector("cons"))
}
