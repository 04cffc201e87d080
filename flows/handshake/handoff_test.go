package handshake

import (
	"strings"
	"testing"
)

func TestHandoffCommands(t *testing.T) {
	cases := []struct {
		h     Handoff
		title string
		first string
	}{
		{Handoff{Kind: KindNonce, SenderID: "p1", ReceiverID: "c1"},
			"Next, on the consumer c1 (save the nonce as nonce.txt):",
			"liqo-auth-tui generate tenant --remote-cluster-id p1 --nonce-file nonce.txt --output-file tenant.yaml"},
		{Handoff{Kind: KindTenant, SenderID: "c1", ReceiverID: "p1", File: "/tmp/t.yaml"},
			"Next, on the provider p1 (save the Tenant as /tmp/t.yaml):",
			"liqo-auth-tui apply tenant -f /tmp/t.yaml"},
		{Handoff{Kind: KindIdentity, SenderID: "p1", ReceiverID: "c1", APIServer: "https://p1:6443"},
			"Next, on the consumer c1 (save the Identity as identity.yaml):",
			"liqo-auth-tui apply identity -f identity.yaml"},
		{Handoff{Kind: KindNonce, SenderID: "p1", Batch: true},
			"Next, on the consumer (save the nonce as nonce.txt):",
			"liqo-auth-tui --batch --role consumer --remote-cluster-id p1 --nonce-file nonce.txt > tenant.yaml"},
		{Handoff{Kind: KindTenant, SenderID: "c1", Batch: true},
			"Next, on the provider (save the Tenant as tenant.yaml):",
			"liqo-auth-tui --batch --role provider --remote-cluster-id c1 --tenant-file tenant.yaml > identity.yaml"},
		{Handoff{Kind: KindIdentity, Batch: true},
			"Next, on the consumer (save the Identity as identity.yaml):",
			"liqo-auth-tui --batch --role consumer --remote-cluster-id <provider cluster ID> --identity-file identity.yaml"},
	}
	for _, c := range cases {
		if got := c.h.Title(); got != c.title {
			t.Errorf("Title() = %q, want %q", got, c.title)
		}
		if got := c.h.Commands()[0]; got != c.first {
			t.Errorf("Commands()[0] = %q, want %q", got, c.first)
		}
		if line := c.h.Line(); !strings.HasPrefix(line, c.title+" "+c.first) || strings.Contains(line, "#") {
			t.Errorf("Line() = %q", line)
		}
	}
	id := Handoff{Kind: KindIdentity, SenderID: "p1", ReceiverID: "c1", APIServer: "https://p1:6443"}.Commands()
	if last := id[len(id)-1]; last != "# the consumer c1 must reach https://p1:6443" {
		t.Errorf("last Identity remark = %q", last)
	}
}

func TestArtifactKindReceiver(t *testing.T) {
	for k, want := range map[ArtifactKind]Role{KindNonce: RoleConsumer, KindTenant: RoleProvider, KindIdentity: RoleConsumer} {
		if got := k.Receiver(); got != want {
			t.Errorf("%s.Receiver() = %q, want %q", k, got, want)
		}
	}
}
