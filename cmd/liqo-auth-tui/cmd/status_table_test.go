package cmd

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

func syntheticRows(n int) []handshake.Peering {
	notAfter := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]handshake.Peering, n)
	for i := range rows {
		rows[i] = handshake.Peering{RemoteID: fmt.Sprintf("consumer-%04d", i), Role: handshake.RoleProvider, Generation: handshake.GenerationV1,
			MadeBy: handshake.MadeByLiqo, Stage: handshake.StageGenerateIdentity, Tenant: handshake.StateReady, TenantCondition: "Active",
			CertificateNotAfter: notAfter, Slices: []flows.SliceStatus{{Name: "s", Authentication: "Accepted", Resources: "Denied"}},
			Requested: map[string]string{"cpu": "2"}, Granted: map[string]string{"cpu": "2", "memory": "1Gi"},
			Health: handshake.Health{Verdict: handshake.VerdictOK, Reason: "Tenant accepted"}}
	}
	return rows
}

// One line per row under the header; a provider's row has no renewal.
func TestStatusTableLines(t *testing.T) {
	var out strings.Builder
	require.NoError(t, printStatusTable(&out, syntheticRows(2), false))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, strings.Fields("consumer-0000 - provider v1 liqo generate-identity - ready Active 2027-01-01T00:00:00Z - 1 (1 denied) cpu=2 cpu=2,memory=1Gi ok Tenant accepted"),
		strings.Fields(lines[1]))
}

// BenchmarkStatusTable renders `status` for a provider with 1,000 consumers.
func BenchmarkStatusTable(b *testing.B) {
	rows := syntheticRows(1000)
	start := time.Now()
	n := 0
	for b.Loop() {
		if err := printStatusTable(io.Discard, rows, false); err != nil {
			b.Fatal(err)
		}
		n++
	}
	perTable := float64(time.Since(start).Microseconds()) / 1000 / float64(n)
	b.ReportMetric(perTable, "ms/table")
	fmt.Printf("status table of 1000 rows: %.2f ms per render\n", perTable)
}
