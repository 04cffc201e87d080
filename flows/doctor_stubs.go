package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Stubs of the checks still to be written; each moves to its own file
// (doctor.go lists them) when it is.

func checkClusterIdentity(context.Context, *doctorRun, *Cluster, handshake.Scope) []Check { return nil }
func checkCRDs(context.Context, *doctorRun, *Cluster, handshake.Scope) []Check            { return nil }
func checkController(context.Context, *doctorRun, *Cluster, handshake.Scope) []Check      { return nil }
func checkCSRs(context.Context, *doctorRun, *Cluster, handshake.Scope) []Check            { return nil }
func checkCertificate(context.Context, *doctorRun, PeeringRow) []Check                    { return nil }
func checkReplication(context.Context, *doctorRun, PeeringRow) []Check                    { return nil }
func checkLiqo0x(context.Context, *doctorRun, PeeringRow) []Check                         { return nil }
