package tui

import (
	"strings"
	"testing"
)

// 7. Line mode, automated: the same confirmation and summary as plain
// lines; the already-issued refusal offers d, confirmed before Reissue.
func TestAccessibleLiqo0xAutomatedReissue(t *testing.T) {
	f := liqo0xProvider(newFake(), "none")
	f.liqo0x.errs = map[string][]error{"AuthenticateLiqo0x": {&Failure{
		Reason: "provider provider-1 already issued the one identity of cluster consumer-1 (403)", Hint: "delete it on the provider, then retry",
		AlreadyIssued: true}}}
	out, err := runLines(t, f, both(), lines(
		"",  // detect: continue
		"",  // confirmation: enter authenticates
		"d", // error: delete the provider's identity
		"n", // not yet
		"d", // again
		"y", // delete and retry
		"",  // summary: finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out,
		"→ Liqo 0.x token authentication: this tool",
		"The provider issues ONE identity per cluster ID",
		"Authenticate? Type a key, then Return:\n  enter  authenticate\n  esc    back\n",
		"d deletes, on provider provider-1, the certificate it stored for consumer consumer-1",
		"  d  delete the provider's identity, retry\n",
		"Delete the provider's identity for this consumer and retry?",
		"✓ Authenticated with the Liqo 0.x provider",
		"TLS:                 skipped",
	)
	wantOpts(t, f, Liqo0xOptions{}, Liqo0xOptions{Reissue: true})
}

// 7. Line mode, manual: the provider prints the peer info masked and the
// token only when asked; the consumer pastes it at the nonce's prompt.
func TestAccessibleLiqo0xManualBothSides(t *testing.T) {
	f := liqo0xProvider(newFake(), "")
	f.liqo0x.authDisabled = true
	out, err := runLines(t, f, providerOnly(), lines(
		"",  // detect: continue (peer info)
		"n", // do not print the token in clear
		"",  // do not save
		"",  // summary: finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out, "Send this peer info to the consumer's admin.", "WARNING: "+fakeDisabledWarning,
		"token:    "+fakeTokenMasked, "--auth-token "+fakeTokenMasked, "Liqo 0.x peer info handed over")
	if strings.Contains(out, fakeToken[:16]) || strings.Contains(out, fakePeerInfoData[20:40]) {
		t.Fatal("the token was printed without being asked for")
	}

	f = newFake()
	out, err = runLines(t, f, consumerOnly(), lines(
		"",                    // detect: continue (manual, the consumer)
		"",                    // provider ID: provider-1
		"p", fakePeerInfoData, // paste the peer info at the nonce's prompt
		"p", // the confirmation has no peering toggle here: not a key
		"",  // authenticate
		"",  // finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out, "Paste the nonce (or a Liqo 0.x peer info) (one line), then Return:",
		"✓ a valid Liqo 0.x peer info from provider provider-1", "token:    "+fakeTokenMasked,
		"The provider issues ONE identity per cluster ID", "✓ Authenticated with the Liqo 0.x provider")
	if !f.called("ApplyPeerInfo consumer peer=false reissue=false data=true") {
		t.Fatalf("calls %v", f.calls)
	}
	if strings.Contains(out, fakeToken[:16]) {
		t.Fatal("the token was printed")
	}
}
