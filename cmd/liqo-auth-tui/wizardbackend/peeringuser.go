package wizardbackend

import (
	"context"
	"encoding/base64"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// GeneratePeeringUser makes the peering user of consumerID on the provider,
// as `generate peering-user` does, with the server and CA the wizard
// advertises to the consumer (--api-server-override, --ca-override-file).
// The kubeconfig holds the user's private key: the artifact is Sensitive
// and its Preview masks the key and the client certificate.
func (b *Backend) GeneratePeeringUser(ctx context.Context, provider tui.ClusterRef, consumerID string, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	user, err := flows.GeneratePeeringUser(ctx, c, consumerID,
		kube.PeeringUserOptions{APIServerOverride: b.engine.APIServerOverride, CAOverride: b.engine.CAOverride}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	own, err := c.ClusterID(ctx)
	if err != nil {
		return nil, explainErr(err)
	}
	return peeringUserArtifact(user, own)
}

func peeringUserArtifact(user *flows.PeeringUser, ownID string) (*tui.Artifact, error) {
	cfg, err := clientcmd.Load(user.Kubeconfig)
	if err != nil {
		return nil, err
	}
	a := &tui.Artifact{Kind: handshake.KindPeeringUser, Data: user.Kubeconfig, Sensitive: true, FromID: ownID, ForID: user.ConsumerID,
		User: user.User, NotAfter: user.Expires}
	if ctx := cfg.Contexts[cfg.CurrentContext]; ctx != nil && cfg.Clusters[ctx.Cluster] != nil {
		a.APIServer = cfg.Clusters[ctx.Cluster].Server
	}
	// kubectl config view's words: the key REDACTED, the certificate
	// DATA+OMITTED (set as the bytes that base64-encode to them).
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
	preview, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, err
	}
	a.Preview = string(preview)
	return a, nil
}

var (
	redacted, _ = base64.StdEncoding.DecodeString("REDACTED")
	omitted, _  = base64.StdEncoding.DecodeString("DATA+OMITTED")
)
