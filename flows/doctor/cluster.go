package doctor

import (
	"context"
	"fmt"
	"strings"
	"sync"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The cluster's own checks: its ID, its key pair and the CRDs. Liqo 0.x
// keeps its identity elsewhere (its checks are liqo0x.go's).

// checkClusterIdentity: the cluster-ID ConfigMap (exactly one, with a
// valid ID) and the authentication-keys Secret (a parseable pair whose
// halves match). Key material is never shown: its fingerprint is.
func checkClusterIdentity(ctx context.Context, _ *run, s *side) []Check {
	release := s.objects.Release
	if release.Flavor == kube.FlavorLiqo0x {
		return nil
	}
	liqo := release.Flavor == kube.FlavorV1
	return []Check{checkClusterID(ctx, s, liqo), checkClusterKeys(ctx, s, liqo)}
}

func checkClusterID(ctx context.Context, s *side, liqo bool) Check {
	c := s.cluster
	const id, title = "cluster-id", "cluster ID"
	l, err := c.ClusterIDConfigMaps(ctx)
	switch {
	case apierrors.IsForbidden(err):
		return passed(id, title, "not checked: this kubeconfig may not list ConfigMaps in "+c.Namespace)
	case err != nil:
		return failed(id, title, "reading the cluster-ID ConfigMap: "+c.Reach(err).Error(), "")
	}
	reinit := s.toolFix("init")
	if liqo {
		// init writes nothing where Liqo is installed: Liqo's chart makes it.
		reinit = "liqoctl install <provider> --cluster-id <this cluster's ID>   # Liqo's chart makes the ConfigMap"
	}
	switch len(l.Items) {
	case 0:
		return failed(id, title, fmt.Sprintf("no ConfigMap labelled %s in namespace %s: this cluster has no ID (%s)",
			kube.ClusterIDSelector, c.Namespace, notPreparedBy(liqo, "Liqo's chart makes it")), reinit)
	case 1:
	default:
		names := make([]string, len(l.Items))
		for i, cm := range l.Items {
			names[i] = cm.Name + "=" + cm.Data[kube.ClusterIDKey]
		}
		return failed(id, title, fmt.Sprintf("%d ConfigMaps labelled %s in namespace %s (%s): Liqo reads exactly one",
			len(l.Items), kube.ClusterIDSelector, c.Namespace, strings.Join(names, ", ")),
			s.kubectlFix("-n "+c.Namespace+" delete configmap <the one whose ID no peering uses>"))
	}
	cm := l.Items[0]
	clusterID := cm.Data[kube.ClusterIDKey]
	if err := authcrypto.ValidateClusterID(clusterID); err != nil {
		what := fmt.Sprintf("%q is not a cluster ID: %v", clusterID, err)
		if clusterID == "" {
			what = "has no " + kube.ClusterIDKey
		}
		fix := s.kubectlFix("-n "+c.Namespace+" delete configmap "+cm.Name) + " && " + s.toolFix("init --cluster-id <a DNS-1123 label>")
		if liqo {
			fix = reinit
		}
		return failed(id, title, fmt.Sprintf("ConfigMap %s/%s %s", c.Namespace, cm.Name, what), fix)
	}
	return passed(id, title, clusterID+" (ConfigMap "+cm.Name+")")
}

func checkClusterKeys(ctx context.Context, s *side, liqo bool) Check {
	c := s.cluster
	const id, title = "cluster-keys", "cluster key pair"
	keys, err := c.Secret(ctx, c.Namespace, kube.AuthKeysSecretName)
	where := "Secret " + c.Namespace + "/" + kube.AuthKeysSecretName
	// A new key pair breaks the peerings made with the old one.
	remake := s.kubectlFix("-n "+c.Namespace+" delete secret "+kube.AuthKeysSecretName) + " && " + s.toolFix("init")
	create := s.toolFix("init")
	if liqo {
		// Liqo's controller-manager makes the key pair when it starts.
		restart := s.kubectlFix("-n " + c.Namespace + " rollout restart deployment/" + kube.LiqoControllerDeployment)
		remake = s.kubectlFix("-n "+c.Namespace+" delete secret "+kube.AuthKeysSecretName) + " && " + restart
		create = restart
	}
	switch {
	case apierrors.IsForbidden(err):
		// Liqo's peering user may not read it, by design.
		return passed(id, title, "not checked: this kubeconfig may not read "+where+" (a peering user's cannot)")
	case kube.IsNotFound(err):
		return failed(id, title, where+" does not exist: this cluster cannot sign a Tenant nor a nonce ("+
			notPreparedBy(liqo, "Liqo's controller-manager makes it when it starts")+")", create)
	case err != nil:
		return failed(id, title, "reading "+where+": "+c.Reach(err).Error(), "")
	}
	broken := func(what string) Check {
		return failed(id, title, where+": "+what+"; a new pair means re-authenticating every peering of this cluster", remake)
	}
	priv, err := authcrypto.ParsePrivateKeyPEM(keys.Data[kube.PrivateKeyField])
	if err != nil {
		return broken(kube.PrivateKeyField + ": " + err.Error())
	}
	pub, err := authcrypto.ParsePublicKeyPEM(keys.Data[kube.PublicKeyField])
	if err != nil {
		return broken(kube.PublicKeyField + ": " + err.Error())
	}
	if !authcrypto.SamePublicKey(priv.Public(), pub) {
		return broken(kube.PublicKeyField + " is not the public half of " + kube.PrivateKeyField)
	}
	fingerprint, err := authcrypto.Fingerprint(pub)
	if err != nil {
		return broken(err.Error())
	}
	return passed(id, title, authcrypto.KeyAlgorithm(pub)+", "+fingerprint)
}

// notPreparedBy says what should have made the cluster's identity: init,
// or Liqo, as liqoMakes says.
func notPreparedBy(liqo bool, liqoMakes string) string {
	if liqo {
		return "Liqo is installed: " + liqoMakes
	}
	return "`init` was not run, or not with this Liqo namespace"
}

// checkCRDs: the kinds the handshake writes are served. On a peering
// user's kubeconfig, which may not read CRDs, discovery says it.
func checkCRDs(ctx context.Context, d *run, s *side) []Check {
	c := s.cluster
	const id, title = "crds", "CRDs"
	release := s.objects.Release
	if release.Flavor == kube.FlavorLiqo0x {
		return nil
	}
	crds, err := kube.InitCRDs()
	if err != nil {
		return []Check{failed(id, title, err.Error(), "")}
	}
	states := make([]crdState, len(crds))
	var wg sync.WaitGroup
	for i, crd := range crds {
		wg.Go(func() { states[i] = readCRD(ctx, c, crd) })
	}
	wg.Wait()
	var missing, unserved, names []string
	for i, st := range states {
		if st.err != nil {
			return []Check{failed(id, title, "reading CRD "+crds[i].Name+": "+c.Reach(st.err).Error(), "")}
		}
		names = append(names, crds[i].Spec.Names.Plural)
		switch {
		case !st.present:
			missing = append(missing, crds[i].Name)
		case !st.established:
			unserved = append(unserved, crds[i].Name)
		}
	}
	if len(missing)+len(unserved) == 0 {
		by := "established"
		if release.Flavor == kube.FlavorV1 {
			by += " (Liqo v1's)"
		}
		return []Check{passed(id, title, strings.Join(names, ", ")+" "+by)}
	}
	var what []string
	if len(missing) > 0 {
		what = append(what, "missing: "+strings.Join(missing, ", "))
	}
	if len(unserved) > 0 {
		what = append(what, "not established: "+strings.Join(unserved, ", "))
	}
	cause := strings.Join(what, "; ")
	fix := s.toolFix("init")
	if release.Flavor == kube.FlavorV1 {
		// init writes nothing where Liqo is installed; Helm installs CRDs
		// only on a first install.
		cause = "Liqo v1 is installed but its CRDs are not all there: " + cause
		fix = s.kubectlFix("apply --server-side -f https://raw.githubusercontent.com/liqotech/liqo/<Liqo's version>/deployments/liqo/charts/liqo-crds/crds/<group>_<kind>.yaml   # each one above")
	} else if len(missing) == len(crds) {
		cause += " (`init` was not run on this cluster)"
	}
	return []Check{failed(id, title, cause, fix)}
}

// crdState is what one CRD looked like.
type crdState struct {
	present, established bool
	err                  error
}

// readCRD reads want's CRD, or asks discovery whether its kind is served
// when the CRD may not be read.
func readCRD(ctx context.Context, c *kube.Cluster, want *apiextv1.CustomResourceDefinition) crdState {
	crd, err := c.APIExt.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case err == nil:
		return crdState{present: true, established: kube.CRDEstablished(crd)}
	case kube.IsNotFound(err):
		return crdState{}
	case !apierrors.IsForbidden(err):
		return crdState{err: err}
	}
	for _, v := range want.Spec.Versions {
		if !v.Served {
			continue
		}
		served, err := c.ServesResource(want.Spec.Group+"/"+v.Name, want.Spec.Names.Plural)
		if err != nil && !apierrors.IsForbidden(err) {
			return crdState{err: err}
		}
		if served {
			return crdState{present: true, established: true}
		}
	}
	return crdState{}
}

// remoteKubeconfigFlag is what a fix for the remote cluster adds.
const remoteKubeconfigFlag = " --kubeconfig <the remote cluster's kubeconfig>"

// toolFix is this tool's command args run on the side's cluster: with its Liqo namespace
// when not the default, and the remote cluster's kubeconfig for that side.
func (s *side) toolFix(args string) string {
	cmd := "liqo-auth-tui " + args
	if s.cluster.Namespace != kube.DefaultLiqoNamespace {
		cmd += " --liqo-namespace " + s.cluster.Namespace
	}
	if s.scope == handshake.Remote {
		cmd += remoteKubeconfigFlag
	}
	return cmd
}

// kubectlFix is kubectl args run on the side's cluster.
func (s *side) kubectlFix(args string) string {
	if s.scope == handshake.Remote {
		return "kubectl" + remoteKubeconfigFlag + " " + args
	}
	return "kubectl " + args
}
