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
	h.mustSee("a valid Tenant from consumer consumer-1", "Verification code: "+tenantCode)
	h.key("ctrl+s")
	h.mustSee("Verification code "+tenantCode+": did the consumer's admin read you the same one?",
		"A different code means this Tenant was replaced on the way: answer n, do not apply it,",
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
	h.mustSee("Verification code: "+identityCode, "Read it aloud with the consumer's admin")
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
		"Verification code: "+tenantCode+"\nRead it aloud with the provider's admin (phone, call): their wizard shows the same code when it receives the Tenant.",
		"  Verification code: "+identityCode,
		"Verification code "+identityCode+": did the provider's admin read you the same one? A different code means this Identity was replaced on the way: "+
			"answer n, do not apply it, and ask for it again through another channel. Apply the Identity of provider provider-1 on consumer-1? [y/N]",
	)
	if strings.Count(out, identityCode) < 2 {
		t.Error("the code is not shown before the question")
	}
}
