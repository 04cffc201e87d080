package doctor

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	certv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// csrPendingGrace is how long a CSR may wait for its approval and its
// certificate before doctor calls it stuck: issuance approves it at once
// and a signer signs within a second; Liqo gives up after 30 s.
const csrPendingGrace = time.Minute

// csrListed caps the CSRs a Cause names.
const csrListed = 3

// checkCSRs: the CertificateSigningRequests of Liqo and of this tool
// (Tenants', ResourceSlices', renewals', peering users', Liqo 0.x
// identities') that were denied, failed, or wait longer than
// csrPendingGrace. Those nothing waits for any more (denied, failed, and
// pending ones no Tenant, ResourceSlice or Renew asks for) are stale:
// doctor --fix deletes them.
func checkCSRs(ctx context.Context, d *run, s *side) []Check {
	c := s.cluster
	const id, title = "csrs", "CSRs"
	l, err := c.CSRs(ctx)
	switch {
	case apierrors.IsForbidden(err):
		return []Check{passed(id, title, "not checked: this kubeconfig may not list CertificateSigningRequests")}
	case err != nil:
		return []Check{failed(id, title, "listing CertificateSigningRequests: "+c.Reach(err).Error(), "")}
	}
	asked := askedCSRs(s.objects)
	var problems []csrProblem
	ours := 0
	for i := range l.Items {
		csr := &l.Items[i]
		who, ok := csrConsumer(csr)
		if !ok {
			continue
		}
		ours++
		if p, bad := judgeCSR(csr, who, d.now, asked); bad {
			problems = append(problems, p)
		}
	}
	if len(problems) == 0 {
		return []Check{passed(id, title, fmt.Sprintf("none stuck, denied or failed (%d of Liqo's and this tool's)", ours))}
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].csr.Name < problems[j].csr.Name })
	return []Check{csrCheck(s, problems)}
}

// csrProblem is one CSR doctor complains about.
type csrProblem struct {
	csr   *certv1.CertificateSigningRequest
	who   string // "consumer X", "peering user of consumer X"
	state string // "was denied (reason)", "waits for approval since 5m", ...
	short string // for a plan: "denied", "failed", "pending for 5m"
	// stale: nothing waits for it any more; approve: it waits for an
	// approval that whoever made it did not give; unsigned: approved and
	// not signed.
	stale, approve, unsigned bool
}

func judgeCSR(csr *certv1.CertificateSigningRequest, who string, now time.Time, asked map[string]bool) (csrProblem, bool) {
	p := csrProblem{csr: csr, who: who}
	for _, cond := range csr.Status.Conditions {
		why := strings.TrimSpace(strings.Trim(cond.Reason+": "+cond.Message, ": "))
		if why != "" {
			why = " (" + why + ")"
		}
		switch cond.Type {
		case certv1.CertificateDenied:
			p.state, p.short, p.stale = "was denied"+why, "denied", true
			return p, true
		case certv1.CertificateFailed:
			p.state, p.short, p.stale = "failed"+why, "failed", true
			return p, true
		}
	}
	age := now.Sub(csr.CreationTimestamp.Time)
	if len(csr.Status.Certificate) > 0 || age < csrPendingGrace {
		return p, false
	}
	p.stale = !asked[string(csr.Spec.Request)]
	p.short = "pending for " + duration.HumanDuration(age)
	if kube.CSRApproved(csr) {
		p.state, p.unsigned = "approved and not signed for "+duration.HumanDuration(age), true
	} else {
		p.state, p.approve = "waits for approval since "+duration.HumanDuration(age), !p.stale
	}
	if p.stale {
		p.state += ", and no Tenant, ResourceSlice or Renew asks for it"
	}
	return p, true
}

// csrCheck is the failed check of the problem CSRs: their causes, the
// kubectl commands, and the Repair that deletes the stale ones.
func csrCheck(s *side, problems []csrProblem) Check {
	c := s.cluster
	var causes, approve, remove, plan, unsigned []string
	for i, p := range problems {
		if i < csrListed {
			causes = append(causes, fmt.Sprintf("CSR %s (%s) %s", p.csr.Name, p.who, p.state))
		}
		if p.unsigned && !slices.Contains(unsigned, p.csr.Spec.SignerName) {
			unsigned = append(unsigned, p.csr.Spec.SignerName)
		}
		switch {
		case p.stale:
			remove = append(remove, p.csr.Name)
			plan = append(plan, fmt.Sprintf("delete CertificateSigningRequest %s (%s; %s)", p.csr.Name, p.who, p.short))
		case p.approve:
			approve = append(approve, p.csr.Name)
		}
	}
	if n := len(problems) - csrListed; n > 0 {
		causes = append(causes, fmt.Sprintf("and %d more", n))
	}
	cause := strings.Join(causes, "; ")
	if len(unsigned) > 0 {
		// The cluster's admin's to fix: doctor has no command for it.
		cause += "; nothing signs " + strings.Join(unsigned, ", ") + " CSRs on this cluster: its admin must run kube-controller-manager's csrsigning controller"
	}
	var fixes []string
	if len(approve) > 0 {
		fixes = append(fixes, s.kubectlFix("certificate approve "+strings.Join(approve, " ")))
	}
	if len(remove) > 0 {
		fixes = append(fixes, s.kubectlFix("delete csr "+strings.Join(remove, " ")))
	}
	check := failed("csrs", "CSRs", cause, strings.Join(fixes, " && "))
	if len(remove) > 0 {
		stale := make([]*certv1.CertificateSigningRequest, 0, len(remove))
		for _, p := range problems {
			if p.stale {
				stale = append(stale, p.csr)
			}
		}
		check.Repair = &Repair{Plan: plan, apply: func(ctx context.Context) error { return deleteCSRs(ctx, c, stale) }}
	}
	return check
}

// deleteCSRs deletes the CSRs doctor saw (not another made since under
// the same name); one already gone is fine.
func deleteCSRs(ctx context.Context, c *kube.Cluster, csrs []*certv1.CertificateSigningRequest) error {
	for _, csr := range csrs {
		err := c.DeleteCSR(ctx, csr)
		if err != nil && !kube.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("deleting CertificateSigningRequest %s: %w", csr.Name, c.Reach(err))
		}
	}
	return nil
}

// csrConsumer tells whether csr is Liqo's or this tool's, and names the
// consumer it is for.
func csrConsumer(csr *certv1.CertificateSigningRequest) (string, bool) {
	if user := csr.Labels[kube.PeeringUserNameLabel]; user != "" {
		return "peering user of consumer " + strings.TrimPrefix(user, kube.PeeringUserPrefix), true
	}
	if csr.Labels[kube.RemoteTenantCSRLabel] != "true" && csr.Labels[liqo0x.RemoteTenantCSRLabel] != "true" {
		return "", false
	}
	// The request's subject is the consumer's cluster ID (§5.4).
	if block, _ := pem.Decode(csr.Spec.Request); block != nil {
		if req, err := x509.ParseCertificateRequest(block.Bytes); err == nil && req.Subject.CommonName != "" {
			return "consumer " + req.Subject.CommonName, true
		}
	}
	return "consumer unknown: its request does not parse", true
}

// askedCSRs are the requests the cluster's Tenants, ResourceSlices and
// Renews ask a certificate for: a pending CSR of one of them is still
// waited for.
func askedCSRs(o *peerings.Objects) map[string]bool {
	asked := map[string]bool{}
	for _, t := range o.Tenants {
		asked[string(t.Spec.CSR)] = true
	}
	for _, rs := range o.Slices {
		asked[string(rs.Spec.CSR)] = true
	}
	for _, r := range o.Renews {
		asked[string(r.Spec.CSR)] = true
	}
	delete(asked, "")
	return asked
}
