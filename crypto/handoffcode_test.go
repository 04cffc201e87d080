package crypto

import (
	"regexp"
	"testing"
)

func TestHandoffCodeShapeAndEveryFieldCounts(t *testing.T) {
	in := HandoffCodeInput{ConsumerID: "c1", ProviderID: "p1", Nonce: "n", ConsumerKey: "SHA256:k", ProviderCA: "SHA256:ca", APIServer: "https://p1:6443"}
	code := HandoffCode(in)
	if !regexp.MustCompile(`^\d{4}( \d{4}){4}$`).MatchString(code) {
		t.Fatalf("code %q is not five groups of four digits", code)
	}
	if HandoffCode(in) != code {
		t.Fatal("the code is not deterministic")
	}
	for name, change := range map[string]func(*HandoffCodeInput){
		"consumer ID":  func(x *HandoffCodeInput) { x.ConsumerID = "c2" },
		"provider ID":  func(x *HandoffCodeInput) { x.ProviderID = "p2" },
		"nonce":        func(x *HandoffCodeInput) { x.Nonce = "m" },
		"consumer key": func(x *HandoffCodeInput) { x.ConsumerKey = "SHA256:other" },
		"CA":           func(x *HandoffCodeInput) { x.ProviderCA = "SHA256:other" },
		"API server":   func(x *HandoffCodeInput) { x.APIServer = "https://attacker:6443" },
		// Fields are length-prefixed: moving bytes between them counts.
		"shifted bytes": func(x *HandoffCodeInput) { x.ConsumerID, x.ProviderID = "c1p", "1" },
	} {
		changed := in
		change(&changed)
		if HandoffCode(changed) == code {
			t.Errorf("changing the %s leaves the code %s", name, code)
		}
	}
}
