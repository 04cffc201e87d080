package handshake

import (
	"strings"
	"testing"
)

// The code's words name the other admin of each hand-off: the receiver to
// the sender, the sender to the receiver; the receiver's remedy depends on
// whether the artifact is applied yet.
func TestCodeHintsNameTheOtherAdmin(t *testing.T) {
	if got := CodeLine(KindTenant, "1234"); got != "Verification code of the Tenant: 1234" {
		t.Errorf("code line %q", got)
	}
	for _, tc := range []struct {
		kind             ArtifactKind
		sender, receiver string
	}{{KindTenant, "consumer", "provider"}, {KindIdentity, "provider", "consumer"}} {
		if sent := CodeSentHint(tc.kind); !strings.Contains(sent, "the "+tc.receiver+"'s admin") || !strings.Contains(sent, string(tc.kind)) {
			t.Errorf("%s sent: %q", tc.kind, sent)
		}
		before, after := CodeReceivedHint(tc.kind, false), CodeReceivedHint(tc.kind, true)
		for _, h := range []string{before, after} {
			if !strings.HasPrefix(h, "The "+tc.sender+"'s admin saw the same code on sending the "+string(tc.kind)) || !strings.Contains(h, "replaced on the way") {
				t.Errorf("%s received: %q", tc.kind, h)
			}
		}
		if !strings.Contains(before, "do not apply it") || !strings.Contains(after, "unauthenticate") {
			t.Errorf("%s remedies: %q / %q", tc.kind, before, after)
		}
	}
}
