//go:build cluster

package cmd_test

import (
	"context"
	stdcrypto "crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// objectListing lists every object of every kind the API server can list
// (namespaced and cluster-scoped, namespaces included, CRDs' kinds too), as
// "resource.group namespace/name" → resourceVersion. Two exclusions, both
// written by the control plane itself, never by the tool's refusals:
// Events (a shared lab's controllers emit them at any time), and the
// heartbeat Leases of kube-system and kube-node-lease (leader election and
// API server identity renew them every few seconds), which are compared by
// name only.
func objectListing(t *testing.T, ctx context.Context, cfg *rest.Config) map[string]string {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	lists, err := dc.ServerPreferredResources()
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	out := map[string]string{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		require.NoError(t, err)
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || r.Name == "events" {
				continue
			}
			gvr := gv.WithResource(r.Name)
			items, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			require.NoError(t, err, gvr.String())
			for _, it := range items.Items {
				rv := it.GetResourceVersion()
				if r.Name == "leases" && (it.GetNamespace() == "kube-system" || it.GetNamespace() == "kube-node-lease") {
					rv = "heartbeat"
				}
				out[gvr.GroupResource().String()+" "+it.GetNamespace()+"/"+it.GetName()] = rv
			}
		}
	}
	return out
}

// listingDiff names what was added, removed or changed between two listings.
func listingDiff(before, after map[string]string) []string {
	var diff []string
	for k, v := range after {
		if old, ok := before[k]; !ok {
			diff = append(diff, "added "+k)
		} else if old != v {
			diff = append(diff, "changed "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			diff = append(diff, "removed "+k)
		}
	}
	sort.Strings(diff)
	return diff
}

// assertRefused checks a refusal: non-zero exit, nothing on stdout, and on
// stderr one error line and at most one more (the remedy), with no progress
// line before it.
func assertRefused(t *testing.T, code int, out, errOut string) {
	t.Helper()
	assert.NotEqual(t, cmd.ExitOK, code, "stdout: %s", out)
	assert.Empty(t, out)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	require.NotEmpty(t, lines, "no error line")
	assert.LessOrEqual(t, len(lines), 2, errOut)
	assert.True(t, strings.HasPrefix(lines[0], "ERRO"), "the first line is not the error: %s", errOut)
	for _, l := range lines {
		assert.False(t, strings.HasPrefix(l, "INFO") || strings.HasPrefix(l, "WARN"), "progress line in a refusal: %s", errOut)
	}
}

// selfSignedPEM is a certificate for cn (O=liqo.io) of pub, signed by key.
func selfSignedPEM(t *testing.T, cn string, pub stdcrypto.PublicKey, key stdcrypto.Signer, notAfter time.Time) []byte {
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(42), Subject: pkix.Name{CommonName: cn, Organization: []string{"liqo.io"}},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// withField adds a field to a YAML object at path (strict decoding must refuse it).
func withField(t *testing.T, data []byte, value any, path ...string) []byte {
	var m map[string]any
	require.NoError(t, yaml.Unmarshal(data, &m))
	cur := m
	for _, p := range path[:len(path)-1] {
		cur = cur[p].(map[string]any)
	}
	cur[path[len(path)-1]] = value
	b, err := yaml.Marshal(m)
	require.NoError(t, err)
	return b
}

// A corpus of malformed artifacts, each applied through the real commands
// (apply tenant, apply identity, generate tenant --nonce/--nonce-file,
// --batch with --tenant-file/--identity-file/--nonce-file) on the two lab
// clusters: each is refused with one error line (plus at most a remedy)
// and no progress line, and the full object listing of both clusters is
// the same afterwards: nothing was written, namespaces included.
func TestCorpusOfMalformedArtifactsWritesNothing(t *testing.T) {
	provider, consumer := initSide(t, 0, "corpus-provider"), initSide(t, 1, "corpus-consumer")
	other := initSide(t, 1, "corpus-other")
	ctx := labtest.Context(t)
	dir, _ := manualFlow(t, provider, consumer)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return b
	}
	nonce := strings.TrimSpace(string(read("nonce.txt")))
	tenantYAML, identityYAML := read("tenant.yaml"), read("identity.yaml")
	tenant, err := artifact.DecodeTenant(tenantYAML)
	require.NoError(t, err)
	identity, err := artifact.DecodeIdentity(identityYAML)
	require.NoError(t, err)
	// The provider made a nonce for another consumer too.
	code, out, errOut := run(provider.args("create", "nonce", "--remote-cluster-id", other.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	otherNonce := strings.TrimSpace(out)

	cc, err := kube.Connect(kube.KubeconfigOptions{Path: consumer.kubeconfig, LiqoNamespace: consumer.liqoNamespace})
	require.NoError(t, err)
	consumerKey, _, err := cc.PrivateKey(ctx)
	require.NoError(t, err)
	stranger, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	strangerPub, err := authcrypto.EncodePublicKeyPEM(stranger.Public())
	require.NoError(t, err)
	strangerRaw, err := authcrypto.PublicKeyDER(stranger.Public())
	require.NoError(t, err)
	strangerSig, err := authcrypto.SignNonce(stranger, []byte(nonce))
	require.NoError(t, err)
	oldNonceSig, err := authcrypto.SignNonce(consumerKey, []byte(mustNonce(t)))
	require.NoError(t, err)
	wrongCNCSR, err := authcrypto.NewCSR(consumerKey, "not-the-consumer")
	require.NoError(t, err)
	strangerCSR, err := authcrypto.NewCSR(stranger, consumer.id)
	require.NoError(t, err)
	wrongOCSRDER, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: consumer.id, Organization: []string{"not-liqo"}}}, consumerKey)
	require.NoError(t, err)
	wrongOCSR := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: wrongOCSRDER})
	strangerCert := selfSignedPEM(t, consumer.id, stranger.Public(), stranger, time.Now().Add(24*time.Hour))
	expiredCert := selfSignedPEM(t, consumer.id, consumerKey.Public(), consumerKey, time.Now().Add(-time.Hour))

	// What the wizard's backend gets too, by kind.
	var wizardTenants, wizardIdentities [][]byte
	file := func(name string, data []byte) string { return writeFile(t, dir, "corpus-"+name, data) }
	mutTenant := func(name string, f func(*v1beta1.Tenant)) string {
		c := tenant.DeepCopy()
		f(c)
		data := encode(t, c)
		wizardTenants = append(wizardTenants, data)
		return file(name, data)
	}
	mutIdentity := func(name string, f func(*v1beta1.Identity)) string {
		c := identity.DeepCopy()
		f(c)
		data := encode(t, c)
		wizardIdentities = append(wizardIdentities, data)
		return file(name, data)
	}
	renameTenant := func(x *v1beta1.Tenant, id string) {
		x.Name, x.Spec.ClusterID, x.Labels = id, id, map[string]string{kube.RemoteClusterIDLabel: id}
	}
	renameIdentity := func(x *v1beta1.Identity, id string) {
		x.Name, x.Spec.ClusterID, x.Labels = kube.ControlPlaneIdentityName(id), id, map[string]string{kube.RemoteClusterIDLabel: id}
	}
	binary := make([]byte, 4096)
	_, err = rand.Read(binary)
	require.NoError(t, err)
	oversized := append(append([]byte{}, tenantYAML...), []byte("# "+strings.Repeat("x", artifact.MaxSize)+"\n")...)
	tenantJSON, err := artifact.Encode(tenant, "json")
	require.NoError(t, err)

	applyTenant := func(path string) []string { return provider.args("apply", "tenant", "-f", path) }
	applyIdentity := func(path string) []string { return consumer.args("apply", "identity", "-f", path) }
	genTenant := func(extra ...string) []string {
		return consumer.args(append([]string{"generate", "tenant", "--remote-cluster-id", provider.id}, extra...)...)
	}
	cases := []struct {
		name  string
		args  []string
		stdin string
	}{
		// Tenants, on the provider.
		{"tenant: empty", applyTenant(file("empty.yaml", nil)), ""},
		{"tenant: comments only", applyTenant(file("comments.yaml", []byte("# nothing\n---\n# here\n"))), ""},
		{"tenant: garbage", applyTenant(file("garbage.yaml", []byte("{{{ not yaml"))), ""},
		{"tenant: binary", applyTenant(file("binary.yaml", binary)), ""},
		{"tenant: truncated YAML", applyTenant(file("trunc.yaml", tenantYAML[:len(tenantYAML)/2])), ""},
		{"tenant: truncated JSON", applyTenant(file("trunc.json", tenantJSON[:len(tenantJSON)-10])), ""},
		{"tenant: oversized", applyTenant(file("big.yaml", oversized)), ""},
		{"tenant: two documents", applyTenant(file("multi.yaml", append(append(append([]byte{}, tenantYAML...), "---\n"...), tenantYAML...))), ""},
		{"tenant: ConfigMap", applyTenant("-"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"},
		{"tenant: an Identity", applyTenant("-"), string(identityYAML)},
		{"tenant: a nonce", applyTenant("-"), nonce + "\n"},
		{"tenant: wrong apiVersion", applyTenant(file("apiversion.yaml", withField(t, tenantYAML, "authentication.liqo.io/v1alpha1", "apiVersion"))), ""},
		{"tenant: unknown field", applyTenant(file("unknown.yaml", withField(t, tenantYAML, 1, "spec", "bogus"))), ""},
		{"tenant: invalid cluster ID", applyTenant(mutTenant("badid.yaml", func(x *v1beta1.Tenant) { renameTenant(x, "Bad_ID") })), ""},
		{"tenant: no cluster ID", applyTenant(mutTenant("noid.yaml", func(x *v1beta1.Tenant) { x.Spec.ClusterID = "" })), ""},
		{"tenant: provider's own ID", applyTenant(mutTenant("ownid.yaml", func(x *v1beta1.Tenant) { renameTenant(x, provider.id) })), ""},
		{"tenant: unknown consumer", applyTenant(mutTenant("unknown-consumer.yaml", func(x *v1beta1.Tenant) { renameTenant(x, "corpus-unknown") })), ""},
		{"tenant: another consumer's ID", applyTenant(mutTenant("other-consumer.yaml", func(x *v1beta1.Tenant) { renameTenant(x, other.id) })), ""},
		{"tenant: for another provider's namespace", applyTenant(mutTenant("other-ns.yaml", func(x *v1beta1.Tenant) { x.Namespace = "liqo-tenant-elsewhere" })), ""},
		{"tenant: label does not match", applyTenant(mutTenant("label.yaml", func(x *v1beta1.Tenant) { x.Labels[kube.RemoteClusterIDLabel] = "someone" })), ""},
		{"tenant: name does not match", applyTenant(mutTenant("name.yaml", func(x *v1beta1.Tenant) { x.Name = "someone-else" })), ""},
		{"tenant: invalid label key", applyTenant(mutTenant("labelkey.yaml", func(x *v1beta1.Tenant) { x.Labels["not a key!"] = "x" })), ""},
		{"tenant: finalizers", applyTenant(mutTenant("finalizers.yaml", func(x *v1beta1.Tenant) { x.Finalizers = []string{"example.com/keep"} })), ""},
		{"tenant: bad authzPolicy", applyTenant(mutTenant("authz.yaml", func(x *v1beta1.Tenant) { x.Spec.AuthzPolicy = "LetEveryoneIn" })), ""},
		{"tenant: bad tenantCondition", applyTenant(mutTenant("condition.yaml", func(x *v1beta1.Tenant) { x.Spec.TenantCondition = "Sleeping" })), ""},
		{"tenant: bad proxyURL scheme", applyTenant(mutTenant("proxy-scheme.yaml", func(x *v1beta1.Tenant) { x.Spec.ProxyURL = "ftp://proxy:21" })), ""},
		{"tenant: proxyURL without host", applyTenant(mutTenant("proxy-host.yaml", func(x *v1beta1.Tenant) { x.Spec.ProxyURL = "http://" })), ""},
		{"tenant: flipped signature byte", applyTenant(mutTenant("badsig.yaml", func(x *v1beta1.Tenant) { x.Spec.Signature[0] ^= 0xff })), ""},
		{"tenant: truncated signature", applyTenant(mutTenant("shortsig.yaml", func(x *v1beta1.Tenant) { x.Spec.Signature = x.Spec.Signature[:10] })), ""},
		{"tenant: no signature", applyTenant(mutTenant("nosig.yaml", func(x *v1beta1.Tenant) { x.Spec.Signature = nil })), ""},
		{"tenant: signature over an old nonce", applyTenant(mutTenant("oldnonce.yaml", func(x *v1beta1.Tenant) { x.Spec.Signature = oldNonceSig })), ""},
		{"tenant: signature by another key", applyTenant(mutTenant("strangersig.yaml", func(x *v1beta1.Tenant) { x.Spec.Signature = strangerSig })), ""},
		{"tenant: public key of another key (PEM)", applyTenant(mutTenant("strangerpub.yaml", func(x *v1beta1.Tenant) { x.Spec.PublicKey = strangerPub })), ""},
		{"tenant: public key of another key (raw)", applyTenant(mutTenant("strangerraw.yaml", func(x *v1beta1.Tenant) { x.Spec.PublicKey = strangerRaw })), ""},
		{"tenant: garbage public key", applyTenant(mutTenant("garbagepub.yaml", func(x *v1beta1.Tenant) { x.Spec.PublicKey = []byte("not a key") })), ""},
		{"tenant: CSR with wrong CN", applyTenant(mutTenant("wrongcn.yaml", func(x *v1beta1.Tenant) { x.Spec.CSR = wrongCNCSR })), ""},
		{"tenant: CSR with wrong O", applyTenant(mutTenant("wrongo.yaml", func(x *v1beta1.Tenant) { x.Spec.CSR = wrongOCSR })), ""},
		{"tenant: CSR of another key", applyTenant(mutTenant("strangercsr.yaml", func(x *v1beta1.Tenant) { x.Spec.CSR = strangerCSR })), ""},
		{"tenant: CSR with trailing garbage", applyTenant(mutTenant("trailing.yaml", func(x *v1beta1.Tenant) { x.Spec.CSR = append(x.Spec.CSR, "trailing"...) })), ""},
		{"tenant: CSR is a certificate", applyTenant(mutTenant("csrcert.yaml", func(x *v1beta1.Tenant) { x.Spec.CSR = identity.Spec.AuthParams.SignedCRT })), ""},
		{"tenant: no CSR", applyTenant(mutTenant("nocsr.yaml", func(x *v1beta1.Tenant) { x.Spec.CSR = nil })), ""},

		// Identities, on the consumer.
		{"identity: empty", applyIdentity("-"), ""},
		{"identity: garbage", applyIdentity("-"), "kind: ["},
		{"identity: binary", applyIdentity(file("binary-id.yaml", binary)), ""},
		{"identity: truncated", applyIdentity(file("trunc-id.yaml", identityYAML[:len(identityYAML)/3])), ""},
		{"identity: two documents", applyIdentity(file("multi-id.yaml", append(append(append([]byte{}, identityYAML...), "---\n"...), identityYAML...))), ""},
		{"identity: a Tenant", applyIdentity(file("tenant-as-id.yaml", tenantYAML)), ""},
		{"identity: unknown field", applyIdentity(file("unknown-id.yaml", withField(t, identityYAML, "x", "spec", "authParams", "bogus"))), ""},
		{"identity: unknown provider", applyIdentity(mutIdentity("unknown-provider.yaml", func(x *v1beta1.Identity) { renameIdentity(x, "corpus-unknown") })), ""},
		{"identity: for another consumer", other.args("apply", "identity", "-f", filepath.Join(dir, "identity.yaml")), ""},
		{"identity: consumer's own ID", applyIdentity(mutIdentity("ownid-id.yaml", func(x *v1beta1.Identity) { renameIdentity(x, consumer.id) })), ""},
		{"identity: invalid cluster ID", applyIdentity(mutIdentity("badid-id.yaml", func(x *v1beta1.Identity) { x.Spec.ClusterID = "Bad_ID" })), ""},
		{"identity: ResourceSlice type", applyIdentity(mutIdentity("rs-id.yaml", func(x *v1beta1.Identity) { x.Spec.Type = v1beta1.ResourceSliceIdentityType })), ""},
		{"identity: label does not match", applyIdentity(mutIdentity("label-id.yaml", func(x *v1beta1.Identity) { x.Labels[kube.RemoteClusterIDLabel] = "someone" })), ""},
		{"identity: name does not match", applyIdentity(mutIdentity("name-id.yaml", func(x *v1beta1.Identity) { x.Name = "controlplane-someone" })), ""},
		{"identity: invalid annotation", applyIdentity(mutIdentity("annotation-id.yaml", func(x *v1beta1.Identity) { x.Annotations = map[string]string{"bad key!": "x"} })), ""},
		{"identity: other namespace", applyIdentity(mutIdentity("ns-id.yaml", func(x *v1beta1.Identity) { x.Namespace = "liqo-tenant-elsewhere" })), ""},
		{"identity: invalid spec.namespace", applyIdentity(mutIdentity("specns-id.yaml", func(x *v1beta1.Identity) { x.Spec.Namespace = "Not_A_Namespace" })), ""},
		{"identity: certificate of another key", applyIdentity(mutIdentity("strangercert-id.yaml", func(x *v1beta1.Identity) { x.Spec.AuthParams.SignedCRT = strangerCert })), ""},
		{"identity: expired certificate", applyIdentity(mutIdentity("expired-id.yaml", func(x *v1beta1.Identity) { x.Spec.AuthParams.SignedCRT = expiredCert })), ""},
		{"identity: garbage signedCRT", applyIdentity(mutIdentity("badcrt-id.yaml", func(x *v1beta1.Identity) { x.Spec.AuthParams.SignedCRT = []byte("not a cert") })), ""},
		{"identity: no signedCRT", applyIdentity(mutIdentity("nocrt-id.yaml", func(x *v1beta1.Identity) { x.Spec.AuthParams.SignedCRT = nil })), ""},
		{"identity: bad CA", applyIdentity(mutIdentity("badca-id.yaml", func(x *v1beta1.Identity) {
			x.Spec.AuthParams.CA = []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
		})), ""},
		{"identity: no apiServer", applyIdentity(mutIdentity("noapi-id.yaml", func(x *v1beta1.Identity) { x.Spec.AuthParams.APIServer = "" })), ""},
		{"identity: http apiServer", applyIdentity(mutIdentity("httpapi-id.yaml", func(x *v1beta1.Identity) { x.Spec.AuthParams.APIServer = "http://1.2.3.4" })), ""},
		{"identity: bad proxyURL", applyIdentity(mutIdentity("proxy-id.yaml", func(x *v1beta1.Identity) { x.Spec.AuthParams.ProxyURL = "ftp://proxy:21" })), ""},

		// Nonces, on the consumer.
		{"nonce: truncated", genTenant("--nonce", nonce[:40]), ""},
		{"nonce: too long", genTenant("--nonce", nonce+"QUJD"), ""},
		{"nonce: with a space", genTenant("--nonce", nonce[:20]+" "+nonce[20:]), ""},
		{"nonce: split over two lines", genTenant("--nonce-file", file("split-nonce.txt", []byte(nonce[:30]+"\n"+nonce[30:]+"\n"))), ""},
		{"nonce: empty file", genTenant("--nonce-file", file("empty-nonce.txt", nil)), ""},
		{"nonce: blank file", genTenant("--nonce-file", file("blank-nonce.txt", []byte(" \n\t\n"))), ""},
		{"nonce: binary", genTenant("--nonce-file", file("binary-nonce.txt", binary)), ""},
		{"nonce: a Tenant on stdin", genTenant("--nonce-file", "-"), string(tenantYAML)},
		{"nonce: for another consumer", genTenant("--nonce", otherNonce), ""},
		{"nonce: another nonce than the one signed", genTenant("--nonce", mustNonce(t)), ""},
		{"nonce: own ID as provider", consumer.args("generate", "tenant", "--remote-cluster-id", consumer.id, "--nonce", nonce), ""},
		{"nonce: invalid provider ID", consumer.args("generate", "tenant", "--remote-cluster-id", "Bad_ID", "--nonce", nonce), ""},
		{"nonce: with --in-band and a bad nonce", genTenant("--nonce", "bad", "--in-band", "--proxy-url", "http://proxy:3128"), ""},

		// --batch, on either side.
		{"batch: Tenant of another consumer", provider.args("--batch", "--role", "provider", "--remote-cluster-id", other.id, "--tenant-file", filepath.Join(dir, "tenant.yaml")), ""},
		{"batch: bad Tenant", provider.args("--batch", "--role", "provider", "--remote-cluster-id", consumer.id, "--tenant-file", filepath.Join(dir, "corpus-badsig.yaml")), ""},
		{"batch: Identity of another provider", consumer.args("--batch", "--role", "consumer", "--remote-cluster-id", "corpus-unknown", "--identity-file", filepath.Join(dir, "identity.yaml")), ""},
		{"batch: Identity for an unknown provider", consumer.args("--batch", "--role", "consumer", "--remote-cluster-id", "corpus-unknown", "--identity-file", filepath.Join(dir, "corpus-unknown-provider.yaml")), ""},
		{"batch: truncated nonce", consumer.args("--batch", "--role", "consumer", "--remote-cluster-id", provider.id, "--nonce-file", file("batch-nonce.txt", []byte(nonce[:40]))), ""},
		{"batch: nonce for another consumer", consumer.args("--batch", "--role", "consumer", "--remote-cluster-id", provider.id, "--nonce-file", file("batch-other-nonce.txt", []byte(otherNonce))), ""},
	}
	require.GreaterOrEqual(t, len(cases), 40)
	t.Logf("corpus: %d malformed artifacts", len(cases))

	cfgs := []*rest.Config{clusters(t)[0].Config, clusters(t)[1].Config}
	before := []map[string]string{objectListing(t, ctx, cfgs[0]), objectListing(t, ctx, cfgs[1])}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runWithInput(tc.stdin, tc.args...)
			t.Log(strings.TrimSpace(errOut))
			assertRefused(t, code, out, errOut)
		})
	}
	// The wizard's backend takes the same path: refused, with no progress
	// event before the refusal.
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	providerRef := tui.ClusterRef{Kubeconfig: provider.kubeconfig, Namespace: provider.liqoNamespace}
	consumerRef := tui.ClusterRef{Kubeconfig: consumer.kubeconfig, Namespace: consumer.liqoNamespace}
	wizardCases := 0
	wizard := func(name string, call func(handshake.Sink) error) {
		wizardCases++
		t.Run("wizard "+name, func(t *testing.T) {
			var mu sync.Mutex
			var events []handshake.Event
			err := call(func(ev handshake.Event) { mu.Lock(); events = append(events, ev); mu.Unlock() })
			require.Error(t, err)
			mu.Lock()
			defer mu.Unlock()
			for _, ev := range events {
				assert.NotEqual(t, handshake.StepDone, ev.Kind, "progress before the refusal %q: %s", err, ev.Message)
				assert.NotEqual(t, handshake.Note, ev.Kind, "progress before the refusal %q: %s", err, ev.Message)
			}
		})
	}
	for i, data := range append(wizardTenants, identityYAML, binary, nil) {
		wizard(fmt.Sprintf("tenant %d", i), func(sink handshake.Sink) error {
			_, err := b.ApplyTenant(ctx, providerRef, data, sink)
			return err
		})
	}
	for i, data := range append(wizardIdentities, tenantYAML, binary, nil) {
		wizard(fmt.Sprintf("identity %d", i), func(sink handshake.Sink) error {
			_, err := b.ApplyIdentity(ctx, consumerRef, data, sink)
			return err
		})
	}
	for i, n := range []string{nonce[:40], nonce + "QUJD", otherNonce, mustNonce(t)} {
		wizard(fmt.Sprintf("nonce %d", i), func(sink handshake.Sink) error {
			_, err := b.GenerateTenant(ctx, consumerRef, provider.id, n, sink)
			return err
		})
	}
	t.Logf("wizard backend: %d malformed artifacts", wizardCases)

	for i, cfg := range cfgs {
		after := objectListing(t, ctx, cfg)
		assert.Empty(t, listingDiff(before[i], after), "cluster %d: malformed artifacts must write nothing", i)
	}
}
