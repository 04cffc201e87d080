package peerings

import (
	"context"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Options tune Read and Watch.
type Options struct {
	// Remote, when set, is read too: the rows with it carry its own row
	// about this cluster (Remote), and the health covers both sides.
	Remote *kube.Cluster
	// Now is the clock of the health verdicts (nil: time.Now).
	Now func() time.Time
	// Debounce is Watch's quiet time before a new overview (0:
	// DefaultDebounce).
	Debounce time.Duration
	// OnSnapshot, when set, is handed what each overview read, before its
	// rows are returned or sent (by Watch from its goroutine):
	// doctor checks it instead of listing the clusters again
	// (doctor.Options.Snapshot).
	OnSnapshot func(*Snapshot)
}

// Time is the clock of the verdicts: o.Now, or time.Now.
func (o Options) Time() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Read lists every peering c takes part in, as consumer and provider,
// Liqo v1 and 0.x, whoever made it: one list per kind (never a read per
// peer), so that a provider with thousands of consumers answers at once.
// With o.Remote, the remote is read the same way and joined by cluster ID.
func Read(ctx context.Context, c *kube.Cluster, o Options) ([]handshake.Peering, error) {
	local, remote, err := ListBoth(ctx, c, o.Remote)
	if err != nil {
		return nil, err
	}
	o.tell(local, remote)
	return RowsOf(local, remote, o.Time()), nil
}

// RowsOf builds the rows of local's objects, joined with remote's
// (nil: only local), with their health at now.
func RowsOf(local, remote *Objects, now time.Time) []handshake.Peering {
	rows := clusterRows(local)
	if remote != nil {
		rows = join(rows, local.LocalID, clusterRows(remote), remote.LocalID)
	}
	for i := range rows {
		markUnauthenticated(&rows[i])
		rows[i].Health = HealthOf(rows[i], now)
	}
	return rows
}

// Snapshot is what one overview read of its clusters (the objects
// its rows were built from): Doctor checks it instead of listing again
// (doctor.Options.Snapshot). Watch's are its informers' stores at
// that overview: read only.
type Snapshot struct {
	Local, Remote *Objects
}

// tell hands o.OnSnapshot what an overview read.
func (o Options) tell(local, remote *Objects) {
	if o.OnSnapshot != nil {
		o.OnSnapshot(&Snapshot{Local: local, Remote: remote})
	}
}
