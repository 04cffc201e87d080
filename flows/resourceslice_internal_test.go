package flows

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A request becomes the slice liqoctl makes: labels for replication,
// class default, the VirtualNode annotation unless refused, and only the
// quantities asked.
func TestCheckSliceRequestBuildsLiqosSlice(t *testing.T) {
	rs, err := checkSliceRequest(artifact.SliceRequest{Name: "s", ProviderID: "p", CPU: "500m", Pods: "30", CreateVirtualNode: true})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{kube.ReplicationLabel: "true", kube.RemoteIDLabel: "p", kube.RemoteClusterIDLabel: "p"}, rs.Labels)
	assert.Equal(t, map[string]string{kube.CreateVirtualNodeAnnotation: "true"}, rs.Annotations)
	assert.Equal(t, authv1beta1.ResourceSliceClassDefault, rs.Spec.Class)
	assert.Equal(t, "p", rs.Spec.ProviderClusterID)
	assert.Empty(t, rs.Spec.CSR, "the consumer controller signs it")
	assert.Equal(t, map[string]string{"cpu": "500m", "pods": "30"}, peerings.Quantities(rs.Spec.Resources))

	rs, err = checkSliceRequest(artifact.SliceRequest{Name: "s", ProviderID: "p", Class: "gpu"})
	require.NoError(t, err)
	assert.Nil(t, rs.Annotations)
	assert.Nil(t, rs.Spec.Resources)
	assert.Equal(t, authv1beta1.ResourceSliceClass("gpu"), rs.Spec.Class)
}

func TestCheckSliceRequestRefuses(t *testing.T) {
	for _, tc := range []struct {
		req  artifact.SliceRequest
		want string
	}{
		{artifact.SliceRequest{Name: "Bad_Name", ProviderID: "p"}, `"Bad_Name" is not a valid ResourceSlice name`},
		{artifact.SliceRequest{Name: "a-name-much-too-long-to-be-a-label-value-on-the-identity-of-the-slice", ProviderID: "p"}, "at most 63"},
		{artifact.SliceRequest{Name: "s", ProviderID: "P"}, "provider cluster ID"},
		{artifact.SliceRequest{Name: "s", ProviderID: "p", Memory: "8GB!"}, `memory: "8GB!" is not a quantity`},
		{artifact.SliceRequest{Name: "s", ProviderID: "p", CPU: "-1"}, `cpu: "-1" is negative`},
		{artifact.SliceRequest{Name: "s", ProviderID: "p", Class: "No Spaces"}, `"No Spaces" is not a valid class`},
	} {
		_, err := checkSliceRequest(tc.req)
		require.Error(t, err, tc.req)
		assert.Contains(t, err.Error(), tc.want)
	}
	assert.NoError(t, artifact.CheckSliceRequest(artifact.SliceRequest{Name: "s", CPU: "1"}), "no provider ID yet (--batch before the handshake)")
}

// The same request again is fine (nothing to update); another one is an
// update in place, said in words; one made meanwhile by someone else is
// refused with what to do.
func TestSameSlice(t *testing.T) {
	want, err := checkSliceRequest(artifact.SliceRequest{Name: "s", ProviderID: "p", CPU: "1", CreateVirtualNode: true})
	require.NoError(t, err)
	existing := want.DeepCopy()
	existing.Namespace = "liqo-tenant-p"
	existing.Spec.CSR = []byte("filled by the controller")
	existing.Spec.ConsumerClusterID = "c"
	existing.Spec.Resources[corev1.ResourceCPU] = resource.MustParse("1000m") // same quantity, other spelling
	assert.NoError(t, sameSlice(existing, want))
	existing.Spec.Resources[corev1.ResourceCPU] = resource.MustParse("2")
	updated, changes := sliceUpdate(existing, want)
	assert.Equal(t, []string{"cpu 2 -> 1"}, changes)
	assert.True(t, updated.Spec.Resources.Cpu().Equal(resource.MustParse("1")))
	assert.Equal(t, []byte("filled by the controller"), updated.Spec.CSR, "the CSR stays: nothing to sign again")
	assert.ErrorContains(t, sameSlice(existing, want), "was made meanwhile and asks for something else (class \"default\", resources cpu=2): run the command again to update it")
}

func TestSliceStatusOf(t *testing.T) {
	rs := &authv1beta1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", Labels: kube.ResourceSliceLabels("p")},
		Spec: authv1beta1.ResourceSliceSpec{Class: "default", Resources: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}}}
	now := metav1.Now()
	rs.Status.Conditions = kube.SetSliceCondition(nil, authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionAccepted, "CertificateIssued", "ok", now)
	rs.Status.Conditions = kube.SetSliceCondition(rs.Status.Conditions, authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionDenied, "TenantCordoned", "cordoned", now)
	id := &authv1beta1.Identity{ObjectMeta: metav1.ObjectMeta{Name: "resourceslice-s", Namespace: "ns"},
		Status: authv1beta1.IdentityStatus{KubeconfigSecretRef: &corev1.LocalObjectReference{Name: "kubeconfig-resourceslice-s"}}}
	assert.Equal(t, SliceStatus{Name: "s", ProviderID: "p", Class: "default", Authentication: "Accepted", Resources: "Denied", Message: "cordoned", Reason: "TenantCordoned",
		Requested: map[string]string{"pods": "3"}, Identity: "ns/resourceslice-s", KubeconfigSecret: "ns/kubeconfig-resourceslice-s"}, peerings.SliceStatusOf(rs, id))
}

// A condition's lastTransitionTime moves when its status, reason or
// message does, as Liqo's EnsureCondition moves it; not on a same write.
func TestSetSliceConditionTransitionTime(t *testing.T) {
	t0 := metav1.Unix(1000, 0)
	conds := kube.SetSliceCondition(nil, authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted, "A", "a", t0)
	conds = kube.SetSliceCondition(conds, authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted, "A", "a", metav1.Unix(1500, 0))
	require.Len(t, conds, 1)
	assert.Equal(t, t0, conds[0].LastTransitionTime, "nothing changed")
	conds = kube.SetSliceCondition(conds, authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted, "B", "b", metav1.Unix(2000, 0))
	assert.Equal(t, metav1.Unix(2000, 0), conds[0].LastTransitionTime, "another reason")
	assert.Equal(t, "B", conds[0].Reason)
	conds = kube.SetSliceCondition(conds, authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted, "B", "c", metav1.Unix(2500, 0))
	assert.Equal(t, metav1.Unix(2500, 0), conds[0].LastTransitionTime, "another message")
	conds = kube.SetSliceCondition(conds, authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionDenied, "B", "c", metav1.Unix(3000, 0))
	assert.Equal(t, metav1.Unix(3000, 0), conds[0].LastTransitionTime, "another status")
}

// Liqo's conditions say only what was denied: without the provider's
// Warning, the denial names the usual causes; a provider's own words
// (this project's earlier releases wrote them) are kept.
func TestDeniedSliceErrorWithoutTheProvider(t *testing.T) {
	st := SliceStatus{Name: "s", ProviderID: "p", Authentication: "Accepted", Resources: "Denied", Message: kube.SliceResourcesDeniedMessage}
	e := deniedSliceError(context.Background(), st, nil)
	assert.Equal(t, "resources", e.Denied)
	assert.Empty(t, e.Message)
	assert.Contains(t, e.Error(), "provider p denied the resources of ResourceSlice s"+hintSeparator)
	assert.Contains(t, e.Hint(), "cordoned or drained")
	assert.Contains(t, e.Hint(), "`liqo-auth-tui activate tenant`")

	st = SliceStatus{Name: "s", ProviderID: "p", Authentication: "Denied", Message: kube.SliceAuthenticationDeniedMessage}
	e = deniedSliceError(context.Background(), st, &sliceWait{})
	assert.Equal(t, "authentication", e.Denied)
	assert.Contains(t, e.Hint(), "a CSR that does not match this cluster's keys")

	st.Message = "invalid common name"
	e = deniedSliceError(context.Background(), st, nil)
	assert.Equal(t, "invalid common name", e.Message)
	assert.NotContains(t, e.Hint(), "Events")
}

// The refusal to unauthenticate names the command for each slice, the
// first five, and how to list the rest.
func TestSliceDeleteCommands(t *testing.T) {
	var list []authv1beta1.ResourceSlice
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		list = append(list, authv1beta1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	assert.Equal(t, "`liqo-auth-tui delete resourceslice a --remote-cluster-id p`", sliceDeleteCommands(list[:1], "p"))
	got := sliceDeleteCommands(list, "p")
	assert.Contains(t, got, "`liqo-auth-tui delete resourceslice e --remote-cluster-id p`; … and 2 more (`liqo-auth-tui get resourceslice --remote-cluster-id p` lists them)")
	assert.NotContains(t, got, "resourceslice f ")
}

// A wait for the provider's answer that ran out says whether the request
// reached the provider and what to run: on the provider when nothing known
// serves it, on the consumer when the copy never arrived; always how to
// remove it. Explain shows the hint apart, and it is a timeout.
func TestSliceUnansweredError(t *testing.T) {
	timeout := fmt.Errorf("%w: the provider's answer", kube.ErrWaitTimeout)
	reached := &SliceUnansweredError{Slice: "s", ProviderID: "p", ConsumerID: "c", Namespace: "liqo-tenant-c", LocalNamespace: "liqo-tenant-p",
		Known: true, Reached: true, Err: timeout}
	assert.Contains(t, reached.Error(), "no answer from provider p to ResourceSlice s: the request reached it (namespace liqo-tenant-c) but nothing there answered")
	assert.Contains(t, reached.Hint(), "its admin runs `liqo-auth-tui install controller` there, or keeps the wizard (`liqo-auth-tui --role provider --remote-cluster-id c`) open on its summary")
	assert.Contains(t, reached.Hint(), "remove it: `liqo-auth-tui delete resourceslice s --remote-cluster-id p`")

	served := *reached
	served.Answerer = handshake.AnswererLiqo
	assert.Contains(t, served.Hint(), "the provider's controller did not answer in time")
	assert.NotContains(t, served.Hint(), "install controller")

	lost := *reached
	lost.Reached = false
	assert.Contains(t, lost.Error(), "the request never reached it")
	assert.Contains(t, lost.Hint(), "`kubectl describe resourceslices.authentication.liqo.io s -n liqo-tenant-p`")

	unknown := *reached
	unknown.Known = false
	assert.NotContains(t, unknown.Error(), "reached")

	e := Explain(&StepError{Step: "wait-resourceslice", Line: "Failed waiting: " + reached.Error() + " (step timeout 1m0s)", Err: reached})
	assert.True(t, e.Timeout)
	assert.Equal(t, reached.Hint(), e.Hint)
	assert.NotContains(t, e.Reason, "install controller", "the hint is not repeated in the reason")
	assert.Contains(t, e.Reason, "nothing there answered")
}

// After an update, the old grant is not the answer; the new one is, and
// so is a denial (a drained Tenant), and any answer to a plugin's class.
func TestSliceGrants(t *testing.T) {
	asked := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}
	rs := &authv1beta1.ResourceSlice{Spec: authv1beta1.ResourceSliceSpec{Class: authv1beta1.ResourceSliceClassDefault},
		Status: authv1beta1.ResourceSliceStatus{Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}
	rs.Status.Conditions = kube.SetSliceCondition(nil, authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted, "", "", metav1.Now())
	assert.True(t, sliceGrants(rs, nil), "not an update")
	assert.False(t, sliceGrants(rs, asked), "the old grant")
	rs.Status.Resources[corev1.ResourceCPU] = resource.MustParse("3000m")
	assert.True(t, sliceGrants(rs, asked), "the new grant")
	rs.Status.Resources[corev1.ResourceCPU] = resource.MustParse("2")
	rs.Status.Conditions = kube.SetSliceCondition(rs.Status.Conditions, authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionDenied, "", "", metav1.Now())
	assert.True(t, sliceGrants(rs, asked), "a denial")
	rs.Status.Conditions = nil
	rs.Spec.Class = "gpu"
	assert.True(t, sliceGrants(rs, asked), "a plugin's class")
}
