package wizardbackend

import (
	"context"
	"sync"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The overview's diagnosis: doctor's checks of a peering on what the
// overview's watch read (no new lists), and the fixes doctor makes itself
// (`doctor --fix`'s), applied once the wizard showed their plans.

// Diagnose runs doctor's checks on the peering with remoteID.
func (b *Backend) Diagnose(ctx context.Context, ref tui.ClusterRef, remote *tui.ClusterRef, remoteID string) ([]tui.DoctorCheck, error) {
	d, err := b.doctor(ctx, ref, remote, remoteID, true)
	if err != nil {
		return nil, err
	}
	return doctorChecks(d, remote != nil), nil
}

// ApplyRepair applies check's Repair as `doctor --fix` does: doctor runs
// again on what the watch read, the check's Repair with the plan the
// wizard showed is applied (doctor.ApplyRepair), then doctor runs on new
// lists, the watch not having seen the repair's writes yet.
func (b *Backend) ApplyRepair(ctx context.Context, ref tui.ClusterRef, remote *tui.ClusterRef, remoteID string, check tui.DoctorCheck) ([]tui.DoctorCheck, error) {
	d, err := b.doctor(ctx, ref, remote, remoteID, true)
	if err != nil {
		return nil, err
	}
	c, err := d.RepairOf(check.Key, check.Plan)
	if err != nil {
		return nil, explainErr(err)
	}
	if err := doctor.ApplyRepair(ctx, c); err != nil {
		return nil, explainErr(flows.Scoped(c.Scope, err))
	}
	if d, err = b.doctor(ctx, ref, remote, remoteID, false); err != nil {
		return nil, err
	}
	return doctorChecks(d, remote != nil), nil
}

// doctor runs doctor.Run on ref (and remote) for remoteID; watched: on
// the latest overview its watch read, when one runs.
func (b *Backend) doctor(ctx context.Context, ref tui.ClusterRef, remote *tui.ClusterRef, remoteID string, watched bool) (*doctor.Diagnosis, error) {
	c, o, err := b.overviewOf(ref, remote)
	if err != nil {
		return nil, err
	}
	localRef := flowsRef(ref)
	opts := doctor.Options{RemoteID: remoteID, Remote: o.Remote, LocalRef: &localRef}
	if remote != nil {
		remoteRef := flowsRef(*remote)
		opts.RemoteRef = &remoteRef
	}
	if watched {
		opts.Snapshot = b.snapshots.latest(snapshotKeyOf(ref, remote))
	}
	d, err := doctor.Run(ctx, c, opts)
	if err != nil {
		return nil, explainErr(err)
	}
	return d, nil
}

// doctorChecks are a diagnosis's checks as the wizard shows them: with both
// clusters, each titled with its side.
func doctorChecks(d *doctor.Diagnosis, both bool) []tui.DoctorCheck {
	checks := make([]tui.DoctorCheck, 0, len(d.Checks))
	for _, ch := range d.Checks {
		title := ch.Title
		if both {
			title = ch.Scope.Prefix() + title
		}
		c := tui.DoctorCheck{OK: ch.OK, Title: title, Detail: ch.Detail, Cause: ch.Cause, Fix: ch.Fix}
		if !ch.OK && ch.Repair != nil {
			c.Plan, c.Key = ch.Repair.Plan, ch.Key()
		}
		checks = append(checks, c)
	}
	return checks
}

// snapshotKey names the clusters an overview watch reads.
type snapshotKey struct {
	local, remote tui.ClusterRef
	both          bool
}

func snapshotKeyOf(ref tui.ClusterRef, remote *tui.ClusterRef) snapshotKey {
	k := snapshotKey{local: ref}
	if remote != nil {
		k.remote, k.both = *remote, true
	}
	return k
}

// snapshots are the latest overview each running watch read, by the
// clusters it reads; a watch that ends takes its own away (not a newer
// watch's of the same clusters).
type snapshots struct {
	mu    sync.Mutex
	next  int
	byKey map[snapshotKey]watchedSnapshot
}

type watchedSnapshot struct {
	watch int
	s     *peerings.Snapshot
}

// watch names a new watch of ref and remote.
func (s *snapshots) watch(ref tui.ClusterRef, remote *tui.ClusterRef) (snapshotKey, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	return snapshotKeyOf(ref, remote), s.next
}

func (s *snapshots) keep(k snapshotKey, watch int, snap *peerings.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byKey == nil {
		s.byKey = map[snapshotKey]watchedSnapshot{}
	}
	s.byKey[k] = watchedSnapshot{watch: watch, s: snap}
}

func (s *snapshots) drop(k snapshotKey, watch int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byKey[k].watch == watch {
		delete(s.byKey, k)
	}
}

// latest is what the running watch of k read last (nil: none runs).
func (s *snapshots) latest(k snapshotKey) *peerings.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byKey[k].s
}
