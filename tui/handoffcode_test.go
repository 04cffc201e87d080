package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The codes each side's backend computed: equal when nothing was replaced.
const (
	tenantCode   = "4821 0937 5512 8830 1174"
	identityCode = "7390 1288 0456 3321 9902"
)

// codedBackend is the fake with the verification codes a real backend
// computes on each side.
type codedBackend struct{ *fakeBackend }

func withCode(a *Artifact, err error, code string) (*Artifact, error) {
	if a != nil {
		a.Code = code
	}
	return a, err
}

func (b codedBackend) GenerateTenant(ctx context.Context, c ClusterRef, providerID, nonce string, sink handshake.Sink) (*Artifact, error) {
	a, err := b.fakeBackend.GenerateTenant(ctx, c, providerID, nonce, sink)
	return withCode(a, err, tenantCode)
}

func (b codedBackend) CheckTenant(ctx context.Context, c ClusterRef, data []byte) (*Artifact, error) {
	a, err := b.fakeBackend.CheckTenant(ctx, c, data)
	return withCode(a, err, tenantCode)
}

func (b codedBackend) GenerateIdentity(ctx context.Context, c ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error) {
	a, err := b.fakeBackend.GenerateIdentity(ctx, c, consumerID, sink)
	return withCode(a, err, identityCode)
}

func (b codedBackend) CheckIdentity(ctx context.Context, c ClusterRef, data []byte) (*Artifact, error) {
	a, err := b.fakeBackend.CheckIdentity(ctx, c, data)
	return withCode(a, err, identityCode)
}

// The receiving wizard shows its code and, before applying, asks whether
// the other admin read the same, saying what another code means; n
// applies nothing. The sending wizard shows the code with the artifact.
func TestWizardAsksForTheVerificationCodeBeforeApplying(t *testing.T) {
	f := newFake()
	f.peers = []Peer{{ID: "consumer-1", Stage: handshake.StageAwaitTenant}}
	f.stages["provider/consumer-1"] = handshake.StageAwaitTenant
	o := providerOnly()
	o.Backend = codedBackend{f}
	h := newHarness(t, f, o)
	h.key("enter", "down", "enter", "enter") // detect, the known consumer, its nonce handed over
	screenIs[*receiveScreen](t, h)
	h.send(tea.PasteMsg{Content: tenantYAML})
	h.mustSee("a valid Tenant from consumer consumer-1", "Verification code of the Tenant: "+tenantCode)
	h.key("ctrl+s")
	h.mustSeeFlat("Verification code of the Tenant: "+tenantCode+". The consumer's admin saw the same code on sending the Tenant: "+
		"a different one means it was replaced on the way; then answer n, do not apply it, and ask for it again through another channel.",
		"Apply the Tenant of consumer consumer-1")
	h.key("n")
	if f.called("ApplyTenant") {
		t.Fatal("n applied the Tenant")
	}
	h.key("ctrl+s", "y")
	ho := screenIs[*handoffScreen](t, h)
	if ho.art.Kind != handshake.KindIdentity {
		t.Fatalf("hand-off of %v", ho.art.Kind)
	}
	h.mustSee("Verification code of the Identity: "+identityCode, "Read it aloud with the consumer's admin")
}

// Accessible mode reads the code out on the hand-off and asks the same
// question, on one line, before applying.
func TestAccessibleReadsTheVerificationCode(t *testing.T) {
	f := newFake()
	dir := t.TempDir()
	tenantPath, idPath := filepath.Join(dir, "tenant.yaml"), filepath.Join(dir, "identity.yaml")
	if err := os.WriteFile(idPath, []byte(identityYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	o := consumerOnly()
	o.Backend = codedBackend{f}
	out, err := runLines(t, f, o, lines("", "", "p", fakeNonce, "y", tenantPath, "f", idPath, "y", ""))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out,
		"Verification code of the Tenant: "+tenantCode+"\nRead it aloud with the provider's admin (phone, call): they see the same code on receiving the Tenant.",
		"  Verification code of the Identity: "+identityCode,
		"Verification code of the Identity: "+identityCode+". The provider's admin saw the same code on sending the Identity: a different one means it was replaced on the way; "+
			"then answer n, do not apply it, and ask for it again through another channel. Apply the Identity of provider provider-1 on consumer-1? [y/N]",
	)
	if strings.Count(out, identityCode) < 2 {
		t.Error("the code is not shown before the question")
	}
}
