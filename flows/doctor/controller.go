package doctor

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// What serves a cluster's side of the handshake, besides the in-process
// controllers of a running wizard (which end with it): this tool's
// in-cluster controller, leading under its Lease, or Liqo v1's
// controller-manager.
const (
	// controllerDeployment is the in-cluster controller
	// (assets/deploy/controller/deployment.yaml).
	controllerDeployment = "liqo-auth-controller"
	// liqoControllerLease is held by Liqo's controller-manager when it runs
	// with leader election (more than one replica).
	liqoControllerLease = "66cf253f.ctrlmgr.liqo.io"
)

// checkController: something serves the cluster's Tenants and Identities.
func checkController(ctx context.Context, d *run, s *side) []Check {
	c := s.cluster
	const id, title = "controller-running", "controller"
	objects := s.objects
	if objects.Release.Flavor == kube.FlavorLiqo0x {
		return nil
	}
	liqo := objects.Release.Flavor == kube.FlavorV1
	var ours, liqos servingObjects
	var wg sync.WaitGroup
	wg.Go(func() { ours = readServing(ctx, c, kube.ControllerLeaseName, controllerDeployment) })
	if liqo {
		wg.Go(func() { liqos = readServing(ctx, c, liqoControllerLease, kube.LiqoControllerDeployment) })
	}
	wg.Wait()
	if apierrors.IsForbidden(ours.leaseErr) {
		// Liqo's peering user may not read it, by design.
		return []Check{passed(id, title, "not checked: this kubeconfig may not read the Lease "+c.Namespace+"/"+kube.ControllerLeaseName+" (a peering user's cannot)")}
	}
	for _, err := range []error{ours.leaseErr, ours.deployErr, liqos.leaseErr, liqos.deployErr} {
		if err != nil && !apierrors.IsForbidden(err) {
			return []Check{failed(id, title, "reading the controller's Lease and Deployment: "+c.Reach(err).Error(), "")}
		}
	}
	if held, ago, fresh := ours.holder(d.now); fresh {
		return []Check{passed(id, title, fmt.Sprintf("%s: Lease held by %s, renewed %s ago", controllerDeployment, held, duration.HumanDuration(ago)))}
	}
	if liqo {
		if liqos.deploy != nil && liqos.deploy.Status.AvailableReplicas > 0 {
			return []Check{passed(id, title, "Liqo's "+kube.LiqoControllerDeployment+": "+replicasText(liqos.deploy))}
		}
		if held, ago, fresh := liqos.holder(d.now); fresh {
			return []Check{passed(id, title, fmt.Sprintf("Liqo's controller-manager: Lease held by %s, renewed %s ago", held, duration.HumanDuration(ago)))}
		}
		if liqos.deploy != nil {
			return []Check{deploymentNotServing(s, liqos.deploy, "")}
		}
		return []Check{failed(id, title, fmt.Sprintf("Liqo v1 is installed but its controller-manager does not run: no Deployment %s/%s", c.Namespace, kube.LiqoControllerDeployment),
			"liqoctl install <provider> --cluster-id "+s.name()+"   # Liqo's chart makes its controller-manager again")}
	}
	leaseText := "nobody holds the Lease " + c.Namespace + "/" + kube.ControllerLeaseName
	if held, ago, _ := ours.holder(d.now); held != "" {
		renewed := "last renewed it " + duration.HumanDuration(ago) + " ago"
		if ago < 0 {
			renewed = "never renewed it"
		}
		leaseText = fmt.Sprintf("the Lease %s/%s is held by %s, which %s and is gone", c.Namespace, kube.ControllerLeaseName, held, renewed)
	}
	if ours.deploy != nil {
		return []Check{deploymentNotServing(s, ours.deploy, leaseText)}
	}
	return []Check{failed(id, title, fmt.Sprintf("no controller serves this cluster: no Deployment %s/%s and %s (the wizard runs one in-process only while it runs)",
		c.Namespace, controllerDeployment, leaseText), s.toolFix("install controller"))}
}

// deploymentNotServing says why a controller's Deployment serves nothing:
// scaled to zero, its pods not ready, or ready and yet not leading
// (lease says what the Lease shows, "" when the controller has none).
func deploymentNotServing(s *side, deploy *appsv1.Deployment, lease string) Check {
	c := s.cluster
	const id, title = "controller-running", "controller"
	where := "Deployment " + c.Namespace + "/" + deploy.Name
	also := ""
	if lease != "" {
		also = "; " + lease
	}
	ns := "-n " + c.Namespace + " "
	switch {
	case deploy.Spec.Replicas != nil && *deploy.Spec.Replicas == 0:
		return failed(id, title, where+" is scaled to 0 replicas"+also, s.kubectlFix(ns+"scale deployment/"+deploy.Name+" --replicas=2"))
	case deploy.Status.AvailableReplicas == 0:
		pods := ns + "describe pods"
		if sel, err := metav1.LabelSelectorAsSelector(deploy.Spec.Selector); err == nil && !sel.Empty() {
			pods += " -l " + sel.String()
		}
		return failed(id, title, where+" has "+replicasText(deploy)+": its pods are not ready"+also,
			s.kubectlFix(pods)+" && "+s.kubectlFix(ns+"logs deployment/"+deploy.Name))
	}
	if lease == "" {
		lease = "no replica leads"
	}
	return failed(id, title, where+" has "+replicasText(deploy)+" and yet "+lease+": restart its pods",
		s.kubectlFix(ns+"rollout restart deployment/"+deploy.Name))
}

func replicasText(deploy *appsv1.Deployment) string {
	want := int32(1)
	if deploy.Spec.Replicas != nil {
		want = *deploy.Spec.Replicas
	}
	return fmt.Sprintf("%d/%d replicas available", deploy.Status.AvailableReplicas, want)
}

// servingObjects are a controller's Lease and Deployment (nil: absent).
type servingObjects struct {
	lease               *coordv1.Lease
	deploy              *appsv1.Deployment
	leaseErr, deployErr error
}

func readServing(ctx context.Context, c *kube.Cluster, lease, deployment string) servingObjects {
	var s servingObjects
	s.lease, s.leaseErr = c.Lease(ctx, lease)
	if kube.IsNotFound(s.leaseErr) {
		s.lease, s.leaseErr = nil, nil
	}
	s.deploy, s.deployErr = c.Deployment(ctx, deployment)
	if kube.IsNotFound(s.deployErr) || apierrors.IsForbidden(s.deployErr) {
		// A kubeconfig that may read the Lease but not Deployments is
		// judged by the Lease alone.
		s.deploy, s.deployErr = nil, nil
	}
	return s
}

// holder is the Lease's holder ("" = none), how long ago it last renewed
// it (negative: no time or term recorded), and whether its term still runs.
func (s servingObjects) holder(now time.Time) (name string, renewedAgo time.Duration, fresh bool) {
	if s.lease == nil || s.lease.Spec.HolderIdentity == nil || *s.lease.Spec.HolderIdentity == "" {
		return "", 0, false
	}
	spec := s.lease.Spec
	renewed := spec.AcquireTime
	if spec.RenewTime != nil {
		renewed = spec.RenewTime
	}
	if renewed == nil || spec.LeaseDurationSeconds == nil {
		return *spec.HolderIdentity, -1, false
	}
	term := time.Duration(*spec.LeaseDurationSeconds) * time.Second
	return *spec.HolderIdentity, now.Sub(renewed.Time), now.Before(renewed.Add(term))
}
