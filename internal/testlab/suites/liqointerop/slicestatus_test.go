//go:build cluster

package liqointerop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// The offer both providers are started with, in Liqo's flag syntax: Liqo's
// liqo-controller-manager takes these flags, this project's provider the
// same values (offerOptions).
const (
	offerIngress       = "nginx;default,traefik"
	offerLoadBalancers = "metallb;default"
	offerLabels        = "tier=gold,topology.kubernetes.io/zone=lab-1"
	offerStorageClass  = "interop-standard" // the provider's default StorageClass
)

// offerArgs are Liqo's flags for the offer.
var offerArgs = []string{"--enable-storage", "--ingress-classes=" + offerIngress,
	"--load-balancer-classes=" + offerLoadBalancers, "--cluster-labels=" + offerLabels}

// offerOptions is the offer as this project's provider takes it.
func offerOptions(t *testing.T) controller.SliceOffer {
	t.Helper()
	ingress, err := controller.ParseClassNames(offerIngress)
	require.NoError(t, err)
	lbs, err := controller.ParseClassNames(offerLoadBalancers)
	require.NoError(t, err)
	labels, err := controller.ParseLabels(offerLabels)
	require.NoError(t, err)
	return controller.SliceOffer{EnableStorage: true, IngressClasses: ingress, LoadBalancerClasses: lbs, ClusterLabels: labels}
}

// withDefaultStorageClass gives the provider a default StorageClass until
// the test ends.
func withDefaultStorageClass(t *testing.T, ctx context.Context, provider *kube.Cluster) {
	t.Helper()
	scs := provider.Kube.StorageV1().StorageClasses()
	_, err := scs.Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: offerStorageClass,
		Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}, Provisioner: "example.com/disk"}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	t.Cleanup(func() { _ = scs.Delete(context.Background(), offerStorageClass, metav1.DeleteOptions{}) })
}

// sliceFace is what a consumer (and liqoctl info peer, and Liqo's
// VirtualNode creator) reads of a granted slice's status besides its
// certificate and resources.
type sliceFace struct {
	Conditions    [][3]string // type, status, reason: message
	Messages      []string
	Storage       []authv1beta1.StorageType
	Ingress       []authv1beta1.IngressType
	LoadBalancers []authv1beta1.LoadBalancerType
	NodeLabels    map[string]string
}

func faceOf(rs *authv1beta1.ResourceSlice) sliceFace {
	f := sliceFace{Ingress: rs.Status.IngressClasses, LoadBalancers: rs.Status.LoadBalancerClasses, NodeLabels: rs.Status.NodeLabels}
	for _, c := range rs.Status.Conditions {
		f.Conditions = append(f.Conditions, [3]string{string(c.Type), string(c.Status), c.Reason})
		f.Messages = append(f.Messages, c.Message)
	}
	for _, s := range rs.Status.StorageClasses {
		if s.StorageClassName == offerStorageClass { // the lab's API server may hold others
			f.Storage = append(f.Storage, s)
		}
	}
	return f
}

// assertLiqosFace: a granted slice of the default class reads the same
// from Liqo's provider of every release and from this project's.
func assertLiqosFace(t *testing.T, rs *authv1beta1.ResourceSlice) {
	t.Helper()
	assert.Equal(t, sliceFace{
		Conditions: [][3]string{
			{string(authv1beta1.ResourceSliceConditionTypeAuthentication), string(authv1beta1.ResourceSliceConditionAccepted), kube.SliceAuthenticationAcceptedReason},
			{string(authv1beta1.ResourceSliceConditionTypeResources), string(authv1beta1.ResourceSliceConditionAccepted), kube.SliceResourcesAcceptedReason},
		},
		Messages:      []string{kube.SliceAuthenticationAcceptedMessage, kube.SliceResourcesAcceptedMessage},
		Storage:       []authv1beta1.StorageType{{StorageClassName: offerStorageClass, Default: true}},
		Ingress:       []authv1beta1.IngressType{{IngressClassName: "nginx", Default: true}, {IngressClassName: "traefik"}},
		LoadBalancers: []authv1beta1.LoadBalancerType{{LoadBalancerClassName: "metallb", Default: true}},
		NodeLabels:    map[string]string{"tier": "gold", "topology.kubernetes.io/zone": "lab-1"},
	}, faceOf(rs), "what a consumer reads of the granted slice, as Liqo's provider writes it")
}

// A Liqo v1.2 consumer against this project's provider with the default
// class disabled (Liqo's next release's switch, which the module proxy does
// not serve yet): its slice of the default class is authenticated (Liqo's
// identity creator makes its Identity and kubeconfig) and gets no
// resources, with reason DefaultResourceSliceClassDisabled.
func TestLiqoConsumerDefaultClassDisabledOurProvider(t *testing.T) {
	release := realliqov1.LiqoVersion
	p := startPair(t, release, sliceTimeout, liqoConsumes, "liqo-nodefault-consumer", "ours-nodefault-provider")
	ctx, consumer, provider, liqoID, ourID := p.ctx, p.liqo, p.ours, p.liqoID, p.ourID
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	realliqov1.StartReplicator(t, p.liqoLab.KubeconfigPath, realliqov1.ReplicatorOptions{Release: release, ClusterID: liqoID})
	liqotest.RunOurManager(t, ctx, provider, controller.Options{Provider: true, APIServerOverride: p.ourLab.Config.Host, DefaultSliceClassDisabled: true})

	consNS, slice := kube.TenantNamespaceName(ourID), "liqo-asks-default"
	_, err = consumer.Liqo.ResourceSlices(consNS).Create(ctx,
		kube.ForgeResourceSlice(slice, consNS, ourID, authv1beta1.ResourceSliceClassDefault, nil, false), metav1.CreateOptions{})
	require.NoError(t, err)
	local := liqotest.WaitSlice(t, ctx, consumer, consNS, slice, "our provider's denial, replicated back", func(rs *authv1beta1.ResourceSlice) bool {
		return kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeResources) == authv1beta1.ResourceSliceConditionDenied
	})
	assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(local, authv1beta1.ResourceSliceConditionTypeAuthentication))
	assert.Equal(t, kube.SliceDefaultClassDisabledReason, kube.SliceCondition(local, authv1beta1.ResourceSliceConditionTypeResources).Reason)
	assert.Empty(t, local.Status.Resources)
	_, s := liqotest.WaitIdentityKubeconfig(t, ctx, consumer, consNS, kube.ResourceSliceIdentityName(slice))
	user, _ := liqotest.WhoAmI(t, ctx, s)
	assert.Equal(t, kube.ResourceSliceUser(slice, liqoID), user, "authenticated all the same")
}
