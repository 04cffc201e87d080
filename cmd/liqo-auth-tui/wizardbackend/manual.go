package wizardbackend

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

func (b *Backend) CreateNonce(ctx context.Context, provider tui.ClusterRef, consumerID string, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	nonce, err := flows.CreateNonce(ctx, flows.ProviderOptions{Provider: c, ConsumerID: consumerID, StepTimeout: b.stepTimeout, Engine: b.engine}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	own, err := flows.ClusterID(ctx, c)
	if err != nil {
		return nil, explainErr(err)
	}
	return &tui.Artifact{Kind: handshake.KindNonce, Data: []byte(nonce + "\n"), FromID: own, ForID: consumerID}, nil
}

// CheckClusterID is flows.ValidateClusterID, the check of the commands'
// cluster-ID flags.
func (b *Backend) CheckClusterID(id string) error { return flows.ValidateClusterID(id) }

func (b *Backend) CheckNonce(data []byte) (*tui.Artifact, error) {
	nonce, err := artifact.ParseNonce(data)
	if err != nil {
		return nil, err
	}
	return &tui.Artifact{Kind: handshake.KindNonce, Data: []byte(nonce)}, nil
}

func (b *Backend) GenerateTenant(ctx context.Context, consumer tui.ClusterRef, providerID, nonce string, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainErr(err)
	}
	t, err := flows.GenerateTenant(ctx, flows.ConsumerOptions{Consumer: c, ProviderID: providerID, Nonce: nonce, ProxyURL: b.proxyURL,
		StepTimeout: b.stepTimeout, Engine: b.engine}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	art, err := tenantArtifact(t, nil, providerID)
	if err == nil {
		art.Code, _ = flows.ConsumerTenantCode(ctx, c, t, providerID) // best effort: no code, no question
	}
	return art, err
}

func (b *Backend) CheckTenant(ctx context.Context, provider tui.ClusterRef, data []byte) (*tui.Artifact, error) {
	t, err := artifact.DecodeTenant(data)
	if err != nil {
		return nil, err
	}
	c, err := b.connect(provider)
	if err != nil {
		return nil, err
	}
	placed, err := flows.CheckTenant(ctx, c, t)
	if err != nil {
		return nil, err
	}
	art, err := tenantArtifact(placed, data, "")
	if err == nil {
		art.Code, _ = flows.ProviderTenantCode(ctx, c, t)
	}
	return art, err
}

func (b *Backend) ApplyTenant(ctx context.Context, provider tui.ClusterRef, data []byte, sink handshake.Sink) (*tui.Artifact, error) {
	t, err := artifact.DecodeTenant(data)
	if err != nil {
		return nil, err
	}
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	applied, err := flows.ApplyTenant(ctx, flows.ProviderOptions{Provider: c, ConsumerID: t.Spec.ClusterID, StepTimeout: b.stepTimeout, Engine: b.engine}, t, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return tenantArtifact(applied, data, "")
}

func (b *Backend) GenerateIdentity(ctx context.Context, provider tui.ClusterRef, consumerID string, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	gen, err := flows.GenerateIdentity(ctx, c, consumerID, "", sink)
	if err != nil {
		return nil, explainErr(err)
	}
	art, err := identityArtifact(gen.Identity, nil)
	if err == nil {
		art.Code = gen.Code
	}
	return art, err
}

func (b *Backend) CheckIdentity(ctx context.Context, consumer tui.ClusterRef, data []byte) (*tui.Artifact, error) {
	id, err := artifact.DecodeIdentity(data)
	if err != nil {
		return nil, err
	}
	c, err := b.connect(consumer)
	if err != nil {
		return nil, err
	}
	placed, err := flows.CheckIdentity(ctx, c, id)
	if err != nil {
		return nil, err
	}
	art, err := identityArtifact(placed, data)
	if err == nil {
		art.Code, _ = flows.ConsumerIdentityCode(ctx, c, id)
	}
	return art, err
}

func (b *Backend) ApplyIdentity(ctx context.Context, consumer tui.ClusterRef, data []byte, sink handshake.Sink) (*tui.AuthResult, error) {
	id, err := artifact.DecodeIdentity(data)
	if err != nil {
		return nil, err
	}
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainErr(err)
	}
	applied, err := flows.ApplyIdentity(ctx, flows.ConsumerOptions{Consumer: c, ProviderID: id.Spec.ClusterID, StepTimeout: b.stepTimeout, Engine: b.engine,
		SkipPodReachCheck: b.skipPodReachCheck}, id, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	own, err := flows.ClusterID(ctx, c)
	if err != nil {
		return nil, explainErr(err)
	}
	res := &tui.AuthResult{ConsumerID: own, ProviderID: id.Spec.ClusterID, Identity: applied.Namespace + "/" + applied.Name,
		CertificateExpiry: artifact.CertificateNotAfter(applied)}
	if ref := applied.Status.KubeconfigSecretRef; ref != nil {
		res.KubeconfigSecret = applied.Namespace + "/" + ref.Name
	}
	res.ConsumerFingerprint, _ = flows.KeyFingerprint(ctx, c)
	return res, nil
}
