package doctor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// What a front-end that keeps an overview (the wizard's watch) hands
// doctor, so that it does not list the clusters again, and how it names a
// check's Repair to apply it after showing its plan.

// objects are what Run checks: the snapshot's when it read the same
// clusters (a remote or not, as o.Remote), else a new list of both.
func (o Options) objects(ctx context.Context, c *kube.Cluster) (local, remote *peerings.Objects, err error) {
	if s := o.Snapshot; s != nil && s.Local != nil && (s.Remote != nil) == (o.Remote != nil) {
		return s.Local, s.Remote, nil
	}
	return peerings.ListBoth(ctx, c, o.Remote)
}

// Key names a check across two runs of doctor on the same clusters: its
// ID, its peering and its side.
func (c Check) Key() string {
	return strings.Join([]string{c.ID, c.RemoteID, string(c.Scope)}, "/")
}

// ErrRepairChanged: the check a front-end showed has no Repair with the
// plan shown any more (it passes now, or its plan changed): diagnose again.
var ErrRepairChanged = errors.New("diagnose again before fixing")

// RepairOf is the failed check of d named key (Check.Key) whose Repair's
// plan is the one shown: what a front-end that showed the plan of an
// earlier Diagnosis applies (ApplyRepair), after running doctor again.
func (d *Diagnosis) RepairOf(key string, plan []string) (Check, error) {
	for _, c := range d.Repairs() {
		if c.Key() != key {
			continue
		}
		if !slices.Equal(c.Repair.Plan, plan) {
			return Check{}, fmt.Errorf("%s: doctor's fix changed since it was shown: %w", c.Title, ErrRepairChanged)
		}
		return c, nil
	}
	return Check{}, fmt.Errorf("that check passes now or doctor cannot fix it itself: %w", ErrRepairChanged)
}
