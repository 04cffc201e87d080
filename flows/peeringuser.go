package flows

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/kubeconfig"
)

// PeeringUser is what GeneratePeeringUser made on the provider.
type PeeringUser struct {
	ConsumerID string
	// User is the certificate's CN (liqo-peer-user-<id>-<32 hex>), the
	// Kubernetes user the provider's RBAC binds.
	User string
	// Kubeconfig holds the user's private key: hand it to the consumer's
	// admin only, never log it.
	Kubeconfig []byte
	Expires    time.Time // the certificate's notAfter
	// APIServer is the server in the kubeconfig, KeyType its key's type.
	APIServer string
	KeyType   authcrypto.KeyType
}

// PeeringUserOptions choose the key and what the kubeconfig points at.
type PeeringUserOptions struct {
	// KeyType of the user's key pair; "" (KeyTypeAuto) follows the
	// provider's TLS compatibility mode, like liqoctl.
	KeyType authcrypto.KeyType
	// APIServerOverride, CAOverride and TrustedCA change the server and
	// CA of the kubeconfig, which are otherwise what the consumer's
	// Identity gets (AdvertisedTo). They change only the kubeconfig, so
	// they apply on real Liqo too.
	APIServerOverride string
	CAOverride        []byte
	TrustedCA         bool
}

// GeneratePeeringUser makes, on the provider, a peering user for consumerID
// (§9.4, kube.Cluster.GeneratePeeringUser), as a step: each object is a
// Note. Its kubeconfig reaches the provider by the rule of an Identity
// (the Tenant's annotations, the serving controller's flags, a
// control-plane Node on 6443, the provider kubeconfig's server), so it
// works from where the consumer's cluster does, not only from the
// provider's admin's machine. The consumer's admin then runs the automated
// handshake with it as the remote kubeconfig.
func GeneratePeeringUser(ctx context.Context, provider *kube.Cluster, consumerID string, o PeeringUserOptions, sink handshake.Sink) (*PeeringUser, error) {
	sink = step.OrDiscard(sink)
	res := &PeeringUser{ConsumerID: consumerID}
	err := RunStep(ctx, sink, Step{ID: "generate-peering-user", Scope: handshake.Local, Title: "Generating the peering user",
		Failure: "Unable to generate the peering user", Command: "liqoctl generate peering-user --consumer-cluster-id " + consumerID,
		Run: func(ctx context.Context) error {
			if err := ValidateClusterID(consumerID); err != nil {
				return err
			}
			adv, err := advertised(ctx, provider, consumerID,
				EngineOptions{APIServerOverride: o.APIServerOverride, CAOverride: o.CAOverride, TrustedCA: o.TrustedCA}, true)
			if err != nil {
				return err
			}
			keyType, why := o.KeyType, "as asked"
			if keyType == "" {
				keyType, why = peeringUserKeyType(ctx, provider)
			}
			note := func(format string, args ...any) {
				sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: fmt.Sprintf(format, args...)})
			}
			note("The kubeconfig reaches the provider at %s (%s)", adv.APIServer, adv.Source.Text())
			note("The user's key is %s (%s)", keyName[keyType], why)
			res.Kubeconfig, err = provider.GeneratePeeringUser(ctx, consumerID, kube.PeeringUserOptions{
				KeyType: keyType, APIServer: adv.APIServer, CA: adv.CA, Report: noteChange(sink)})
			if err != nil {
				return err
			}
			cert, err := kubeconfig.ClientCertificate(res.Kubeconfig)
			if err != nil {
				return err
			}
			res.User, res.Expires, res.APIServer, res.KeyType = cert.Subject.CommonName, cert.NotAfter, adv.APIServer, keyType
			return nil
		},
		Outcome: func() string {
			return fmt.Sprintf("Peering user %s generated for consumer %s (certificate valid until %s)", res.User, consumerID, res.Expires.UTC().Format(time.RFC3339))
		}})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// keyName names a key type as Liqo's documentation does.
var keyName = map[authcrypto.KeyType]string{authcrypto.KeyEd25519: "Ed25519", authcrypto.KeyRSA: "RSA-2048"}

// DeletePeeringUser removes the peering user of consumerID from the provider
// (kube.Cluster.DeletePeeringUser) as a step; each object is a Note.
func DeletePeeringUser(ctx context.Context, provider *kube.Cluster, consumerID string, sink handshake.Sink) ([]kube.Change, error) {
	sink = step.OrDiscard(sink)
	var changes []kube.Change
	err := RunStep(ctx, sink, Step{ID: "delete-peering-user", Scope: handshake.Local, Title: "Deleting the peering user",
		Failure: "Unable to delete the peering user", Command: "liqoctl delete peering-user --consumer-cluster-id " + consumerID,
		Run: func(ctx context.Context) (err error) {
			changes, err = provider.DeletePeeringUser(ctx, consumerID)
			for _, ch := range changes {
				noteChange(sink)(ch)
			}
			return err
		},
		Outcome: func() string {
			if !step.Changed(changes) {
				return fmt.Sprintf("No peering user for consumer %s: nothing to delete", consumerID)
			}
			return fmt.Sprintf("Peering user of consumer %s deleted: its kubeconfig may do nothing more on this cluster "+
				"(a certificate cannot be revoked: it still authenticates until it expires)", consumerID)
		}})
	return changes, err
}

// noteChange reports a change as a (local) Note.
func noteChange(sink handshake.Sink) func(kube.Change) {
	return func(ch kube.Change) {
		sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: ch.String()})
	}
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
