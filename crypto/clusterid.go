package crypto

import (
	"fmt"
	"regexp"
)

// clusterIDPattern is the DNS-1123 label rule Liqo applies to cluster IDs.
var clusterIDPattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

const maxClusterIDLength = 63

// ValidateClusterID checks that id is a valid Liqo cluster ID (a DNS-1123
// label). The ID becomes the CSR common name, hence the Kubernetes user name.
func ValidateClusterID(id string) error {
	if len(id) > maxClusterIDLength || !clusterIDPattern.MatchString(id) {
		return fmt.Errorf("invalid cluster ID %q: must be a DNS-1123 label (lowercase letters, digits, '-', at most 63 characters)", id)
	}
	return nil
}
