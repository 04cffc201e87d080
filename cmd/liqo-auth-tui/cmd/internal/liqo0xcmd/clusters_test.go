//go:build cluster

package liqo0xcmd_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// client is an admin client of a lab cluster.
func client(t *testing.T, c *lab.Cluster) *kube.Cluster {
	t.Helper()
	k, err := kube.NewCluster(c.Config, "")
	require.NoError(t, err)
	return k
}

// snapshot lists what authentication may write on a cluster, with resource
// versions: namespaces, Secrets, RoleBindings (all namespaces), CSRs and
// Liqo 0.x's ForeignClusters (where served).
func snapshot(t *testing.T, ctx context.Context, c *kube.Cluster) []string {
	t.Helper()
	var out []string
	add := func(kind string, m metav1.Object) {
		out = append(out, fmt.Sprintf("%s %s/%s@%s", kind, m.GetNamespace(), m.GetName(), m.GetResourceVersion()))
	}
	nss, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for i := range nss.Items {
		add("Namespace", &nss.Items[i])
	}
	secrets, err := c.Kube.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for i := range secrets.Items {
		add("Secret", &secrets.Items[i])
	}
	rbs, err := c.Kube.RbacV1().RoleBindings(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for i := range rbs.Items {
		add("RoleBinding", &rbs.Items[i])
	}
	csrs, err := c.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for i := range csrs.Items {
		add("CSR", &csrs.Items[i])
	}
	dc, err := dynamic.NewForConfig(c.Config)
	require.NoError(t, err)
	fcs, err := dc.Resource(liqo0x.ForeignClusters).List(ctx, metav1.ListOptions{})
	if !kube.IsNotFound(err) {
		require.NoError(t, err)
		for i := range fcs.Items {
			add("ForeignCluster", &fcs.Items[i])
		}
	}
	sort.Strings(out)
	return out
}

// peerInfoOf reads a peer info file generate peer-info wrote.
func peerInfoOf(t *testing.T, path string) *peerinfo.Info {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	info, err := artifact.ParsePeerInfo(data)
	require.NoError(t, err)
	return info
}

// encode is artifact.EncodePeerInfo of info (which must be valid).
func encode(t *testing.T, info *peerinfo.Info) string {
	t.Helper()
	line, err := artifact.EncodePeerInfo(info)
	require.NoError(t, err)
	return line
}

// encodeUnchecked writes the artifact of a peer info EncodePeerInfo refuses
// (its format: prefix, base64url of the JSON, ".", 8 hex of its SHA-256),
// as a hand-edited or foreign file would carry it.
func encodeUnchecked(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	return handshake.PeerInfoPrefix + base64.RawURLEncoding.EncodeToString(data) + "." + hex.EncodeToString(sum[:])[:8]
}
