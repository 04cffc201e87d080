package crypto

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidateClusterID(t *testing.T) {
	for _, id := range []string{
		"consumer-cluster", "a", "0", "a-b", "1-2-3",
		"6b2e0f6e-7a3f-4f4e-9f57-2d0c9b1c3a4d", // Helm's default: a UUIDv4
		strings.Repeat("a", 63),
	} {
		assert.NoError(t, ValidateClusterID(id), id)
	}
	for _, id := range []string{
		"", "-a", "a-", "Consumer", "a_b", "a.b", "a b", " a", "a\n", "é",
		strings.Repeat("a", 64),
	} {
		want := fmt.Sprintf("invalid cluster ID %q: must be a DNS-1123 label (lowercase letters, digits, '-', at most 63 characters)", id)
		assert.EqualError(t, ValidateClusterID(id), want, id)
	}
}
