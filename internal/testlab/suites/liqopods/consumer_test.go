//go:build cluster

package liqopods_test

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labimage"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labpod"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// A Liqo v1.2.0 consumer running as Pods peers with this project's
// provider and gets a ResourceSlice: Liqo's controller-manager (in-cluster
// config, the chart's RBAC) signs the nonce and makes the Identity, Liqo's
// crd-replicator Pod copies the slice to our provider at the address it
// advertises (its Node's), and the slice's kubeconfig works from a Pod on
// the consumer as the slice's user.
func TestLiqoConsumerAsPodsSliceOurProvider(t *testing.T) {
	lcs := testLab.Clusters(t)
	ourLab, liqoLab := lcs[0], lcs[1]
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	const liqoID, ourID, slice, liqoNS = "liqo-pods-consumer", "ours-pods-provider", "liqo-pods-asks", "liqo"

	// The images load while both clusters are set up.
	start := time.Now()
	loaded := make(chan error, 1)
	go func() { loaded <- loadImages(ctx, liqoLab.Node) }()
	require.NoError(t, realliqov1.Install(ctx, liqoLab.Config, liqoNS, liqoID))
	provider := liqotest.OurCluster(t, ctx, ourLab, ourID)
	require.NoError(t, <-loaded)
	realliqov1.RunAsPods(t, ctx, liqoLab.Config, realliqov1.PodOptions{Namespace: liqoNS, Consumer: true})
	t.Logf("Liqo runs as Pods on the consumer's Node after %s", time.Since(start).Round(time.Millisecond))
	consumer, err := kube.NewCluster(liqoLab.Config, liqoNS)
	require.NoError(t, err)

	// The handshake: our in-process provider advertises its Node.
	advertised := "https://" + net.JoinHostPort(ourLab.Node.IP, strconv.Itoa(lab.APIServerPort))
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	assert.Equal(t, advertised, res.Identity.Spec.AuthParams.APIServer)
	consNS := kube.TenantNamespaceName(ourID)
	id, err := consumer.Liqo.Identities(consNS).Get(ctx, res.Identity.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, liqotest.Managers(id), liqotest.LiqoManager+"/status", "Liqo's controller-manager Pod serves the control-plane Identity")

	// The slice, as `liqoctl create resourceslice` makes it; our provider's
	// controllers answer what the crd-replicator Pod copies over.
	liqotest.RunOurManager(t, ctx, provider, controller.Options{Provider: true, AdvertiseNodeAddress: true})
	asked := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}
	_, err = consumer.Liqo.ResourceSlices(consNS).Create(ctx,
		kube.ForgeResourceSlice(slice, consNS, ourID, authv1beta1.ResourceSliceClassDefault, asked, true), metav1.CreateOptions{})
	require.NoError(t, err)
	local := liqotest.WaitSlice(t, ctx, consumer, consNS, slice, "our provider's answer, replicated back", liqotest.SliceAccepted)
	assert.Contains(t, liqotest.Managers(local), liqotest.ReplicatorManager+"/status", "the crd-replicator Pod copied the status back")
	assert.Equal(t, advertised, local.Status.AuthParams.APIServer)
	_, s := liqotest.WaitIdentityKubeconfig(t, ctx, consumer, consNS, kube.ResourceSliceIdentityName(slice))

	// From a Pod on the consumer, with the slice's kubeconfig Secret mounted.
	got := whoAmIFromPod(t, ctx, consumer, s)
	assert.Equal(t, advertised, got.Server)
	assert.Equal(t, kube.ResourceSliceUser(slice, liqoID), got.User)
	assert.Contains(t, got.Groups, liqoID)
}

// loadImages wraps Liqo's binaries and lab-whoami into images and loads
// them into the Node.
func loadImages(ctx context.Context, node *lab.Node) error {
	probe, err := labimage.LabCommand(ctx, "lab-whoami")
	if err != nil {
		return err
	}
	if err := labimage.LoadWrapped(ctx, probe, whoamiImage, node); err != nil {
		return err
	}
	return realliqov1.LoadImages(ctx, "", node)
}

// whoamiImage is internal/testlab/cmd/lab-whoami's image on the Nodes.
var whoamiImage = labimage.LabRef("lab-whoami", "1")

// whoAmIReport is what lab-whoami writes in its termination message.
type whoAmIReport struct {
	Server string   `json:"server"`
	User   string   `json:"user"`
	Groups []string `json:"groups"`
	Error  string   `json:"error"`
}

// whoAmIFromPod runs lab-whoami in a Pod of the Secret's namespace with
// the Secret's kubeconfig mounted, and returns its report once it ended.
func whoAmIFromPod(t *testing.T, ctx context.Context, c *kube.Cluster, s *corev1.Secret) whoAmIReport {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "whoami-" + s.Name, Namespace: s.Namespace},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{
				Name: "whoami", Image: whoamiImage, ImagePullPolicy: corev1.PullNever,
				Args:         []string{"--kubeconfig=/kubeconfig/" + kube.KubeconfigField},
				VolumeMounts: []corev1.VolumeMount{{Name: "kubeconfig", MountPath: "/kubeconfig", ReadOnly: true}},
			}},
			Volumes: []corev1.Volume{{Name: "kubeconfig", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: s.Name}}}},
		},
	}
	msg, _, err := labpod.Run(ctx, c, pod)
	require.NoError(t, err)
	var r whoAmIReport
	require.NoError(t, json.Unmarshal([]byte(msg), &r), "lab-whoami's report: %q", msg)
	require.Empty(t, r.Error, "the kubeconfig works from the consumer's Pod")
	return r
}
