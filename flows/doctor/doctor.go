package doctor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// This file holds the types and the order the checks run in; each
// concern's checks are in a file of their own.

// Check is one thing doctor looked at, and its verdict.
type Check struct {
	// ID names the kind of check for scripts and tests
	// ("controller-running", "kubeconfig-accepted", ...); stable.
	ID string `json:"id"`
	// Title is what was checked, as the list shows it.
	Title string `json:"title"`
	// RemoteID is the peering the check is about ("" = the cluster).
	RemoteID string `json:"remoteClusterID,omitempty"`
	// Scope is the cluster checked: local, or remote with --remote-kubeconfig.
	Scope handshake.Scope `json:"scope,omitempty"`
	OK    bool            `json:"ok"`
	// Detail is what a passed check saw ("held by pod x, renewed 3s ago").
	Detail string `json:"detail,omitempty"`
	// Cause is why a check failed, in one line.
	Cause string `json:"cause,omitempty"`
	// Fix is the exact command that fixes a failed check (several are
	// joined by " && "); "" when only the other side's admin can, then
	// Cause says who.
	Fix string `json:"fix,omitempty"`
	// Repair is what `doctor --fix` can do itself, shown as its plan
	// before it is applied.
	Repair *Repair `json:"repair,omitempty"`
}

// Repair is a fix doctor applies itself, after showing its plan.
type Repair struct {
	// Plan is one line per write, in the order they are made.
	Plan []string `json:"plan"`
	// apply makes the writes; re-running doctor then passes the check.
	apply func(ctx context.Context) error
}

// Passed and failed checks.
func passed(id, title, detail string) Check {
	return Check{ID: id, Title: title, OK: true, Detail: detail}
}
func failed(id, title, cause, fix string) Check {
	return Check{ID: id, Title: title, Cause: cause, Fix: fix}
}

// Options tune Run.
type Options struct {
	// RemoteID keeps the checks of one peering ("" = every peering).
	RemoteID string
	// Remote, when set, is the remote cluster: its side is checked too,
	// and the checks that need both sides (the consumer's key against the
	// Tenant, the kubeconfig against the provider) are made.
	Remote *kube.Cluster
	// Now is the clock of expiry checks (nil: time.Now).
	Now func() time.Time
	// ReachTimeout bounds each dial of an advertised address (0: 5s).
	ReachTimeout time.Duration
	// LocalRef and RemoteRef are how the front-end reached the clusters:
	// the fix commands name the same kubeconfigs and contexts (nil: they
	// keep placeholders such as <provider's kubeconfig>).
	LocalRef, RemoteRef *flows.ClusterRef
	// Snapshot, when set, is what an overview of the same clusters read
	// (peerings.Options.OnSnapshot): Run checks it instead of listing
	// them again. Ignored when it read a remote and Remote is nil, or the
	// other way round.
	Snapshot *peerings.Snapshot
}

// Diagnosis is doctor's answer: every check, passed or failed, cluster
// checks first, then each peering's.
type Diagnosis struct {
	ClusterID string  `json:"clusterID,omitempty"`
	Checks    []Check `json:"checks"`
}

// Failed are the checks that did not pass.
func (d *Diagnosis) Failed() []Check {
	var out []Check
	for _, c := range d.Checks {
		if !c.OK {
			out = append(out, c)
		}
	}
	return out
}

// Repairs are the failed checks doctor can fix itself.
func (d *Diagnosis) Repairs() []Check {
	var out []Check
	for _, c := range d.Failed() {
		if c.Repair != nil {
			out = append(out, c)
		}
	}
	return out
}

// run is what the checks share: the clusters, and what was read of them
// once (the overview's lists) so that checks do not list again.
type run struct {
	opts          Options
	local, remote *kube.Cluster
	now           time.Time
	// objects of each side, as the overview reads them (remote: nil
	// without --remote-kubeconfig); rows are the overview's rows of the
	// local side joined with the remote's.
	localObjects, remoteObjects *peerings.Objects
	rows                        []handshake.Peering
	// liqo0x keeps what the Liqo 0.x checks learned once per run.
	liqo0x liqo0xMemo
	// peers are each side's objects grouped by remote (pair.go);
	// bindings a provider's tenant bindings (bindings.go).
	peers    map[*peerings.Objects]map[string]*peerings.PeerObjects
	bindings map[*kube.Cluster]*tenantBindings
}

// clusterChecker checks one cluster (the local one, then the remote one
// when given), a side with no peer; it returns its checks with Scope unset.
type clusterChecker func(ctx context.Context, d *run, s *side) []Check

// peeringChecker checks one peering, as its pair of sides.
type peeringChecker func(ctx context.Context, d *run, p *pair) []Check

// The checks, in the order they are listed; each lives in the file of its
// concern.
var (
	clusterCheckers = []clusterChecker{
		checkClusterIdentity, // cluster.go: cluster ID, keys
		checkCRDs,            // cluster.go
		checkController,      // controller.go: running, its Lease
		checkCSRs,            // csr.go: pending, denied, failed
	}
	peeringCheckers = []peeringChecker{
		checkHandshakeObjects,  // handshake.go: Tenant/Identity/kubeconfig, stuck steps, key changed
		checkCredentials,       // credentials.go: 401/403 on the provider, advertised address, proxy
		checkCertificate,       // certificate.go: expiry and renewal path
		checkReplication,       // replication.go: replication refused
		checkTenantCondition,   // condition.go: cordoned, drained
		checkDefaultSliceClass, // condition.go: the default class refused
		checkLiqo0x,            // liqo0x.go: Liqo 0.x's traps
	}
)

// Run checks c (and o.Remote) and every peering between them, or the
// peering with o.RemoteID. It writes nothing; an error means it could not
// read what it checks (the cluster unreachable, the kubeconfig refused).
func Run(ctx context.Context, c *kube.Cluster, o Options) (*Diagnosis, error) {
	if o.RemoteID != "" {
		if err := authcrypto.ValidateClusterID(o.RemoteID); err != nil {
			return nil, fmt.Errorf("--remote-cluster-id: %w", err)
		}
	}
	d := &run{opts: o, local: c, remote: o.Remote, now: peerings.Options{Now: o.Now}.Time()}
	var err error
	if d.localObjects, d.remoteObjects, err = o.objects(ctx, c); err != nil {
		return nil, err
	}
	d.rows = peerings.RowsOf(d.localObjects, d.remoteObjects, d.now)
	diag := &Diagnosis{ClusterID: d.localObjects.LocalID}
	if o := d.remoteObjects; o != nil && o.NarrowedTo != "" {
		diag.Checks = append(diag.Checks, narrowedCheck(o))
	}
	for _, s := range d.clusters() {
		for _, check := range clusterCheckers {
			for _, r := range check(ctx, d, s) {
				r.Scope = s.scope
				r.Fix = o.fillKubeconfigs(r.Fix, handshake.RoleUnknown, s.scope)
				diag.Checks = append(diag.Checks, r)
			}
		}
	}
	rows := d.rows
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].RemoteID < rows[j].RemoteID })
	for _, row := range rows {
		if o.RemoteID != "" && row.RemoteID != o.RemoteID {
			continue
		}
		p := d.pairOf(row)
		for _, check := range peeringCheckers {
			for _, r := range check(ctx, d, p) {
				r.RemoteID = row.RemoteID
				if r.Scope == handshake.NoScope {
					r.Scope = handshake.Local
				}
				r.Fix = o.fillKubeconfigs(r.Fix, row.Role, r.Scope)
				diag.Checks = append(diag.Checks, r)
			}
		}
	}
	if o.RemoteID != "" && !hasPeering(rows, o.RemoteID) {
		diag.Checks = append(diag.Checks, Check{ID: "peering-known", Title: "peering with " + o.RemoteID, RemoteID: o.RemoteID,
			Scope: handshake.Local, Cause: "this cluster has no handshake object about " + o.RemoteID,
			Fix: "liqo-auth-tui status   # lists the peerings this cluster has"})
	}
	return diag, nil
}

// clusters are the clusters checked, each a side of its own: the local
// one, and the remote one when given (whose objects Run then listed too).
func (d *run) clusters() []*side {
	out := []*side{{scope: handshake.Local, id: d.localObjects.LocalID, cluster: d.local, objects: d.localObjects}}
	if d.remote != nil {
		out = append(out, &side{scope: handshake.Remote, id: d.remoteObjects.LocalID, cluster: d.remote, objects: d.remoteObjects})
	}
	return out
}

// narrowedCheck says that the remote kubeconfig (a peering user's) reads
// one namespace only: what doctor could not see there is not checked.
func narrowedCheck(o *peerings.Objects) Check {
	detail := "it may read only namespace " + o.NarrowedTo + " (a peering user's kubeconfig): checks of the rest are skipped"
	if len(o.Restricted) > 0 {
		detail += "; not even " + strings.Join(o.Restricted, ", ") + " there"
	}
	return Check{ID: "remote-kubeconfig-reach", Title: "what the remote kubeconfig may read", Scope: handshake.Remote, OK: true, Detail: detail}
}

func hasPeering(rows []handshake.Peering, id string) bool {
	for _, r := range rows {
		if r.RemoteID == id {
			return true
		}
	}
	return false
}

// ApplyRepair makes the writes of a failed check's Repair. The caller
// showed the plan and got the admin's yes.
func ApplyRepair(ctx context.Context, c Check) error {
	if c.Repair == nil || c.Repair.apply == nil {
		return fmt.Errorf("%s: doctor cannot fix this itself; run: %s", c.Title, c.Fix)
	}
	return c.Repair.apply(ctx)
}
