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

// The nonce's next command is this tool's; liqoctl's is the alternative
// for a consumer running liqoctl, not a further step ("…; then liqoctl
// generate tenant …" read as "use both tools").
func TestHandoffNonceOffersLiqoctlAsAlternative(t *testing.T) {
	h := Handoff{Kind: KindNonce, SenderID: "p1", ReceiverID: "c1"}
	want := "Next, on the consumer c1 (save the nonce as nonce.txt): " +
		"liqo-auth-tui generate tenant --remote-cluster-id p1 --nonce-file nonce.txt --output-file tenant.yaml; " +
		"or, on a consumer running liqoctl: liqoctl generate tenant --remote-cluster-id p1 --nonce <nonce>"
	if got := h.Line(); got != want {
		t.Errorf("Line() = %q\nwant     %q", got, want)
	}
	cmds := h.Commands()
	if last := cmds[len(cmds)-1]; last != "# or, on a consumer running liqoctl: liqoctl generate tenant --remote-cluster-id p1 --nonce <nonce>" {
		t.Errorf("last command %q", last)
	}
}

func TestHandoffPeeringUser(t *testing.T) {
	h := Handoff{Kind: KindPeeringUser, SenderID: "p1", ReceiverID: "c1"}
	if got, want := h.Title(), "Next, on the consumer c1 (save the peering-user kubeconfig as peering-user.kubeconfig):"; got != want {
		t.Errorf("Title() = %q, want %q", got, want)
	}
	want := []string{
		"liqo-auth-tui authenticate --kubeconfig <your kubeconfig> --remote-kubeconfig peering-user.kubeconfig",
		"# or the wizard: liqo-auth-tui --remote-kubeconfig peering-user.kubeconfig",
		"# it is a credential (it holds a private key): send it privately",
		"# on the provider, liqo-auth-tui delete peering-user --consumer-cluster-id c1 revokes its rights",
	}
	if got := h.Commands(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Commands() = %q, want %q", got, want)
	}
	if got := h.Line(); got != h.Title()+" "+want[0] {
		t.Errorf("Line() = %q", got)
	}
	// Saved under another name, from a provider with another Liqo
	// namespace; --batch changes nothing (the consumer runs the automated
	// flow either way).
	h = Handoff{Kind: KindPeeringUser, File: "/tmp/pu.kubeconfig", SenderNamespace: "liqo-p1", Batch: true}
	cmds := h.Commands()
	if cmds[0] != "liqo-auth-tui authenticate --kubeconfig <your kubeconfig> --remote-kubeconfig /tmp/pu.kubeconfig --remote-liqo-namespace liqo-p1" ||
		cmds[1] != "# or the wizard: liqo-auth-tui --remote-kubeconfig /tmp/pu.kubeconfig --remote-liqo-namespace liqo-p1" ||
		!strings.Contains(cmds[3], "--consumer-cluster-id <consumer cluster ID> revokes") {
		t.Errorf("Commands() = %q", cmds)
	}
	if got := (Handoff{Kind: KindPeeringUser, SenderNamespace: "liqo"}).Commands()[0]; strings.Contains(got, "--remote-liqo-namespace") {
		t.Errorf("default namespace named: %q", got)
	}
}

func TestArtifactKindReceiver(t *testing.T) {
	for k, want := range map[ArtifactKind]Role{KindNonce: RoleConsumer, KindTenant: RoleProvider, KindIdentity: RoleConsumer, KindPeeringUser: RoleConsumer} {
		if got := k.Receiver(); got != want {
			t.Errorf("%s.Receiver() = %q, want %q", k, got, want)
		}
	}
}

func TestHandoffPeerInfo(t *testing.T) {
	h := Handoff{Kind: KindPeerInfo, SenderID: "p1", ReceiverID: "c1",
		Equivalent: "liqoctl peer out-of-band milan --auth-url https://p1:443 --cluster-id p1 --auth-token 0123••••••••cdef"}
	if got, want := h.Title(), "Next, on the consumer c1 (save the peer info as peer-info.txt):"; got != want {
		t.Errorf("Title() = %q, want %q", got, want)
	}
	want := []string{
		"liqo-auth-tui apply peer-info -f peer-info.txt",
		"liqo-auth-tui verify --remote-cluster-id p1",
		"# or with liqoctl: liqoctl peer out-of-band milan --auth-url https://p1:443 --cluster-id p1 --auth-token 0123••••••••cdef",
		"# it carries the provider's auth token: send it privately",
	}
	if got := h.Commands(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Commands() = %q, want %q", got, want)
	}
	if got := h.Line(); got != h.Title()+" "+want[0]+"; then "+want[1] {
		t.Errorf("Line() = %q", got)
	}
	h = Handoff{Kind: KindPeerInfo, SenderID: "p1", File: "/tmp/pi.txt", Batch: true}
	cmds := h.Commands()
	if cmds[0] != "liqo-auth-tui --batch --role consumer --remote-cluster-id p1 --peer-info-file /tmp/pi.txt" {
		t.Errorf("batch Commands()[0] = %q", cmds[0])
	}
	if cmds[2] != "# or with liqoctl: liqoctl peer out-of-band <provider name> --auth-url <auth URL> --cluster-id p1 --auth-token <token>" {
		t.Errorf("template liqoctl remark = %q", cmds[2])
	}
	if got := (Handoff{Kind: KindPeerInfo}).Commands()[1]; got != "liqo-auth-tui verify --remote-cluster-id <provider cluster ID>" {
		t.Errorf("unknown sender: %q", got)
	}
	if KindPeerInfo.Receiver() != RoleConsumer || KindPeerInfo.FileName() != "peer-info.txt" {
		t.Error("peer info goes to the consumer as peer-info.txt")
	}
}

// The receiver's next command pins what it expects: the consumer's key for
// a Tenant, the provider's for an Identity or a peer info; no pin, no flag.
func TestHandoffCarriesThePin(t *testing.T) {
	const pin = "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"
	cases := []struct {
		h    Handoff
		want string
	}{
		{Handoff{Kind: KindTenant, SenderID: "c1", Pin: pin}, "liqo-auth-tui apply tenant -f tenant.yaml --consumer-fingerprint " + pin},
		{Handoff{Kind: KindTenant, SenderID: "c1", Pin: pin, Batch: true},
			"liqo-auth-tui --batch --role provider --remote-cluster-id c1 --consumer-fingerprint " + pin + " --tenant-file tenant.yaml > identity.yaml"},
		{Handoff{Kind: KindIdentity, SenderID: "p1", Pin: pin}, "liqo-auth-tui apply identity -f identity.yaml --provider-fingerprint " + pin},
		{Handoff{Kind: KindIdentity, SenderID: "p1", Pin: pin, Batch: true},
			"liqo-auth-tui --batch --role consumer --remote-cluster-id p1 --provider-fingerprint " + pin + " --identity-file identity.yaml"},
		{Handoff{Kind: KindPeerInfo, SenderID: "p1", Pin: pin}, "liqo-auth-tui apply peer-info -f peer-info.txt --provider-fingerprint " + pin},
		{Handoff{Kind: KindPeerInfo, SenderID: "p1", Pin: pin, Batch: true},
			"liqo-auth-tui --batch --role consumer --remote-cluster-id p1 --provider-fingerprint " + pin + " --peer-info-file peer-info.txt"},
		{Handoff{Kind: KindTenant, SenderID: "c1"}, "liqo-auth-tui apply tenant -f tenant.yaml"},
	}
	for _, c := range cases {
		if got := c.h.Commands()[0]; got != c.want {
			t.Errorf("Commands()[0] = %q\nwant             %q", got, c.want)
		}
	}
}
