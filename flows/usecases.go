package flows

import (
	"context"
	"encoding/base64"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// The results and options of kube that the front-ends print or fill in.
type (
	// Change is one object created, updated, deleted or found unchanged.
	Change = kube.Change
	// InitOptions choose the cluster ID and key type of Init.
	InitOptions = kube.InitOptions
	// PeeringUserOptions choose the key and what the kubeconfig points at.
	PeeringUserOptions = kube.PeeringUserOptions
	// PeerInfo is a Liqo 0.x provider's peer info (ID, name, auth URL, token).
	PeerInfo = peerinfo.Info
)

// ApplyController applies the in-cluster controller's manifests with
// image, as `install controller` does, reporting nothing itself.
func ApplyController(ctx context.Context, c *Cluster, image string) ([]Change, error) {
	return c.InstallController(ctx, image)
}

// RemoveController removes the in-cluster controller (CRDs, cluster ID,
// keys and peerings stay).
func RemoveController(ctx context.Context, c *Cluster) ([]Change, error) {
	return c.UninstallController(ctx)
}

// SplitChanges separates what changed ("Deployment x created") from the
// objects found as they should be.
func SplitChanges(changes []Change) (changed, unchanged []string) {
	for _, ch := range changes {
		if ch.Action == kube.Unchanged {
			unchanged = append(unchanged, ch.Object)
		} else {
			changed = append(changed, ch.String())
		}
	}
	return changed, unchanged
}

// KeyFingerprint is the fingerprint of c's authentication key.
func KeyFingerprint(ctx context.Context, c *Cluster) (string, error) {
	pub, _, err := c.PublicKey(ctx)
	if err != nil {
		return "", err
	}
	return authcrypto.Fingerprint(pub)
}

// IdentityNotAfter is when the certificate of the consumer's Identity for
// providerID expires (zero when it cannot be read).
func IdentityNotAfter(ctx context.Context, consumer *Cluster, providerID string) time.Time {
	id, err := consumer.ControlPlaneIdentityFor(ctx, providerID)
	if err != nil {
		return time.Time{}
	}
	return artifact.CertificateNotAfter(id)
}

// ReadvertiseIfAccepted is Readvertise when the provider already accepted
// the consumer's Tenant, and nothing otherwise (the Tenant applied later
// gets the overrides then).
func ReadvertiseIfAccepted(ctx context.Context, o ProviderOptions, sink handshake.Sink) error {
	if authcrypto.ValidateClusterID(o.ConsumerID) != nil {
		return nil
	}
	_, err := o.Provider.TenantFor(ctx, "", o.ConsumerID)
	switch {
	case kube.IsNotFound(err):
		return nil
	case err != nil:
		return err
	}
	_, err = Readvertise(ctx, o, sink)
	return err
}

// PeeringUserPreview is a peering user's kubeconfig as it may be shown:
// the server it points at, and the kubeconfig with kubectl config view's
// words for the private key (REDACTED) and the certificate (DATA+OMITTED).
func PeeringUserPreview(user *PeeringUser) (server, preview string, err error) {
	cfg, err := clientcmd.Load(user.Kubeconfig)
	if err != nil {
		return "", "", err
	}
	if ctx := cfg.Contexts[cfg.CurrentContext]; ctx != nil && cfg.Clusters[ctx.Cluster] != nil {
		server = cfg.Clusters[ctx.Cluster].Server
	}
	for _, ai := range cfg.AuthInfos {
		if len(ai.ClientKeyData) > 0 {
			ai.ClientKeyData = redacted
		}
		if len(ai.ClientCertificateData) > 0 {
			ai.ClientCertificateData = omitted
		}
		if ai.Token != "" {
			ai.Token = "REDACTED"
		}
	}
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		return "", "", err
	}
	return server, string(out), nil
}

// The bytes that base64-encode to kubectl's words.
var (
	redacted, _ = base64.StdEncoding.DecodeString("REDACTED")
	omitted, _  = base64.StdEncoding.DecodeString("DATA+OMITTED")
)
