package kube

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
	authzv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Access is one permission: Verb on Resource of Group (one object when Name
// is set) in Namespace, or cluster-wide when Namespace is "".
type Access struct {
	Verb, Group, Resource, Name, Namespace string
}

// String reads like kubectl auth can-i: "create tenants.authentication.liqo.io
// in namespace liqo-tenant-x", "get namespace liqo-tenant-x", "create
// namespaces (cluster-wide)".
func (a Access) String() string {
	if a.Group == "" && a.Resource == "namespaces" && a.Name != "" {
		return a.Verb + " namespace " + a.Name
	}
	resource, subresource, _ := strings.Cut(a.Resource, "/")
	s := a.Verb + " " + resource
	if a.Group != "" {
		s += "." + a.Group
	}
	if subresource != "" {
		s += "/" + subresource
	}
	if a.Name != "" {
		s += " " + a.Name
	}
	if a.Namespace == "" {
		return s + " (cluster-wide)"
	}
	return s + " in namespace " + a.Namespace
}

// AccessDeniedError names the first permission a kubeconfig lacks.
type AccessDeniedError struct {
	User   string // who the kubeconfig authenticates as
	Access Access
	Reason string // the authorizer's reason, often empty
}

func (e *AccessDeniedError) Error() string {
	msg := fmt.Sprintf("the kubeconfig (user %s) may not %s", e.User, e.Access)
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	return msg
}

// allAccess is what a cluster administrator may do: when it is allowed,
// every other check is too.
var allAccess = Access{Verb: "*", Group: "*", Resource: "*"}

// CheckAccess asks the API server, with SelfSubjectAccessReviews (which any
// authenticated user may create), whether the kubeconfig may do all of
// needs. It writes nothing. The first one denied, in the order given, comes
// back as an *AccessDeniedError. An administrator costs one review.
func (c *Cluster) CheckAccess(ctx context.Context, needs []Access) error {
	if len(needs) == 0 {
		return nil
	}
	if ok, _, err := c.Allowed(ctx, allAccess); err != nil || ok {
		return err
	}
	allowed := make([]bool, len(needs))
	reasons := make([]string, len(needs))
	var g errgroup.Group
	for i, a := range needs {
		g.Go(func() (err error) {
			defer RecoverAsError(&err, "checking access")
			allowed[i], reasons[i], err = c.Allowed(ctx, a)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i, a := range needs {
		if !allowed[i] {
			user, _, err := c.WhoAmI(ctx)
			if err != nil {
				user = "unknown"
			}
			return &AccessDeniedError{User: user, Access: a, Reason: reasons[i]}
		}
	}
	return nil
}

// Allowed asks the API server, with one SelfSubjectAccessReview, whether
// the kubeconfig may do a (Resource may name a subresource: tenants/status),
// and the authorizer's reason.
func (c *Cluster) Allowed(ctx context.Context, a Access) (bool, string, error) {
	resource, subresource, _ := strings.Cut(a.Resource, "/") // tenants/status
	review := &authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authzv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: resource, Subresource: subresource,
			Name: a.Name, Namespace: a.Namespace}}}
	r, err := c.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, "", c.Reach(err)
	}
	return r.Status.Allowed, r.Status.Reason, nil
}

// ControllerAccess is what the reconcilers of kube/controller need on this
// cluster, read from the in-cluster controller's RBAC (assets/deploy/
// controller): the Role's rules in the Liqo namespace first (its Lease),
// then the ClusterRole's, cluster-wide. Controllers run in-process are the
// same reconcilers, so they need the same.
func (c *Cluster) ControllerAccess() ([]Access, error) {
	rules, err := controllerRules()
	if err != nil {
		return nil, err
	}
	return append(rulesAccess(rules.role, c.Namespace), rulesAccess(rules.clusterRole, "")...), nil
}

// controllerRBAC holds the rules of the controller's Role and ClusterRole.
type controllerRBAC struct{ role, clusterRole []rbacv1.PolicyRule }

// controllerRules decodes the controller's RBAC once.
var controllerRules = sync.OnceValues(func() (controllerRBAC, error) {
	var rules controllerRBAC
	ms, err := controllerManifests("", DefaultLiqoNamespace)
	if err != nil {
		return rules, err
	}
	for _, m := range ms {
		kind := m.obj.GetKind()
		if !strings.HasPrefix(m.path, "controller/") || kind != "Role" && kind != "ClusterRole" {
			continue
		}
		var r rbacv1.ClusterRole // a Role has the same fields
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m.obj.Object, &r); err != nil {
			return rules, fmt.Errorf("%s: %w", m.path, err)
		}
		if kind == "Role" {
			rules.role = append(rules.role, r.Rules...)
		} else {
			rules.clusterRole = append(rules.clusterRole, r.Rules...)
		}
	}
	return rules, nil
})

// rulesAccess lists the permissions of RBAC rules, one per verb, resource
// and resource name.
func rulesAccess(rules []rbacv1.PolicyRule, namespace string) []Access {
	var out []Access
	for _, r := range rules {
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, group := range r.APIGroups {
			for _, res := range r.Resources {
				for _, name := range names {
					for _, verb := range r.Verbs {
						out = append(out, Access{Verb: verb, Group: group, Resource: res, Name: name, Namespace: namespace})
					}
				}
			}
		}
	}
	return out
}
