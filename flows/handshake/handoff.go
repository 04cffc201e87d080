package handshake

import "strings"

// ArtifactKind names what travels between the two admins.
type ArtifactKind string

const (
	KindNonce    ArtifactKind = "nonce"
	KindTenant   ArtifactKind = "Tenant"
	KindIdentity ArtifactKind = "Identity"
	// KindPeeringUser is the kubeconfig of a peering user (§9.4): the
	// provider's third way to hand over, with which the consumer's admin
	// runs the automated flow alone. It holds a private key.
	KindPeeringUser ArtifactKind = "peering-user kubeconfig"
	// KindPeerInfo is a Liqo 0.x provider's peer info (cluster ID and name,
	// auth URL, token): what the consumer needs for the token
	// authentication of Liqo 0.x. It holds the token.
	KindPeerInfo ArtifactKind = "peer info"
)

// PeerInfoPrefix starts every encoded peer info (one line): a receiver
// tells a pasted peer info from a nonce by it.
const PeerInfoPrefix = "liqo-0x-peer-info:"

// FileName is the default file an artifact is saved as.
func (k ArtifactKind) FileName() string {
	switch k {
	case KindNonce:
		return "nonce.txt"
	case KindTenant:
		return "tenant.yaml"
	case KindIdentity:
		return "identity.yaml"
	case KindPeeringUser:
		return "peering-user.kubeconfig"
	case KindPeerInfo:
		return "peer-info.txt"
	case KindSliceRequest:
		return "resourceslice-request.txt"
	}
	return "artifact.txt"
}

// Receiver is the role of the admin an artifact is handed to.
func (k ArtifactKind) Receiver() Role {
	if k == KindTenant || k == KindSliceRequest {
		return RoleProvider
	}
	return RoleConsumer
}

// Handoff is one artifact handed to the other admin: what they run next is
// built from it, the same in the wizard, in --batch and in the step
// commands.
type Handoff struct {
	Kind ArtifactKind
	// SenderID is the cluster that made the artifact, ReceiverID the one
	// it is for ("" = unknown).
	SenderID, ReceiverID string
	// File is where the receiver finds it ("" = Kind.FileName()).
	File string
	// Batch: the receiver runs `liqo-auth-tui --batch` rather than the
	// step commands.
	Batch bool
	// APIServer is what an Identity tells the consumer to reach.
	APIServer string
	// SenderNamespace is the sender's Liqo namespace ("" = liqo): a
	// peering user's kubeconfig is used with --remote-liqo-namespace.
	SenderNamespace string
	// Equivalent is the liqoctl command that hands over the same peer info,
	// its token MASKED (the commands are shown and logged); "" = a template.
	Equivalent string
	// Slice is the ResourceSlice of a KindSliceRequest, and Namespace the
	// consumer's tenant namespace on the provider, where its copy shows
	// ("" = liqo-tenant-<consumer>).
	Slice, Namespace string
	// Pin is the sender's fingerprint (its key for a Tenant; its CA, API
	// server or auth server certificate for an Identity or a peer info):
	// the receiver's command refuses an artifact that is not the sender's.
	Pin string
}

// Title is the line before the commands: "Next, on the consumer c1
// (save the nonce as nonce.txt):".
func (h Handoff) Title() string {
	if h.Kind == KindSliceRequest {
		return h.sliceRequestTitle()
	}
	title := "Next, on the " + string(h.Kind.Receiver())
	if h.ReceiverID != "" {
		title += " " + h.ReceiverID
	}
	return title + " (save the " + string(h.Kind) + " as " + h.file() + "):"
}

// Commands are what the receiver runs, in order; lines starting with "#"
// are remarks, not commands.
func (h Handoff) Commands() []string {
	sender := h.SenderID
	if sender == "" {
		sender = "<" + string(h.Kind.Receiver().Other()) + " cluster ID>"
	}
	const tool = "liqo-auth-tui"
	file := h.file()
	if h.Kind == KindPeeringUser {
		return h.peeringUserCommands(tool, file)
	}
	if h.Kind == KindPeerInfo {
		return h.peerInfoCommands(tool, file, sender)
	}
	if h.Kind == KindSliceRequest {
		return h.sliceRequestCommands(tool)
	}
	pin := h.pinFlag()
	if h.Batch {
		switch h.Kind {
		case KindNonce:
			return []string{tool + " --batch --role consumer --remote-cluster-id " + sender + " --nonce-file " + file + " > " + KindTenant.FileName()}
		case KindTenant:
			return []string{tool + " --batch --role provider --remote-cluster-id " + sender + pin + " --tenant-file " + file + " > " + KindIdentity.FileName()}
		}
		return []string{tool + " --batch --role consumer --remote-cluster-id " + sender + pin + " --identity-file " + file}
	}
	switch h.Kind {
	case KindNonce:
		return []string{
			tool + " generate tenant --remote-cluster-id " + sender + " --nonce-file " + file + " --output-file " + KindTenant.FileName(),
			"# or run " + tool + " there and paste the nonce",
			liqoctlAlternative + "liqoctl generate tenant --remote-cluster-id " + sender + " --nonce <nonce>",
		}
	case KindTenant:
		return []string{
			tool + " apply tenant -f " + file + pin,
			tool + " generate identity --remote-cluster-id " + sender + " --output-file " + KindIdentity.FileName(),
		}
	}
	cmds := []string{tool + " apply identity -f " + file + pin, tool + " verify --remote-cluster-id " + sender}
	if h.APIServer != "" {
		receiver := h.ReceiverID
		if receiver == "" {
			receiver = "cluster"
		}
		cmds = append(cmds, "# the consumer "+receiver+" must reach "+h.APIServer)
	}
	return cmds
}

// peeringUserCommands: the consumer's admin runs the automated flow alone,
// the peering user's kubeconfig as the remote one.
func (h Handoff) peeringUserCommands(tool, file string) []string {
	remote := " --remote-kubeconfig " + file
	if h.SenderNamespace != "" && h.SenderNamespace != "liqo" {
		remote += " --remote-liqo-namespace " + h.SenderNamespace
	}
	receiver := h.ReceiverID
	if receiver == "" {
		receiver = "<consumer cluster ID>"
	}
	return []string{
		tool + " authenticate --kubeconfig <your kubeconfig>" + remote,
		"# or the wizard: " + tool + remote,
		"# it is a credential (it holds a private key): send it privately",
		"# on the provider, " + tool + " delete peering-user --consumer-cluster-id " + receiver + " revokes its rights",
	}
}

// peerInfoCommands: the consumer's admin applies a Liqo 0.x provider's peer
// info with this tool, or hands the same to liqoctl.
func (h Handoff) peerInfoCommands(tool, file, sender string) []string {
	apply := tool + " apply peer-info -f " + file + h.pinFlag()
	if h.Batch {
		apply = tool + " --batch --role consumer --remote-cluster-id " + sender + h.pinFlag() + " --peer-info-file " + file
	}
	liqoctl := h.Equivalent
	if liqoctl == "" {
		liqoctl = "liqoctl peer out-of-band <provider name> --auth-url <auth URL> --cluster-id " + sender + " --auth-token <token>"
	}
	return []string{
		apply,
		tool + " verify --remote-cluster-id " + sender,
		"# or with liqoctl: " + liqoctl,
		"# it carries the provider's auth token: send it privately",
	}
}

// liqoctlAlternative starts the remark that gives liqoctl's command for a
// receiver who runs liqoctl rather than this tool: an alternative, not a
// further step.
const liqoctlAlternative = "# or, on a consumer running liqoctl: "

// Line is the title and the commands on one line, for liqoctl-style
// progress output; remarks are left out, but for liqoctl's alternative.
func (h Handoff) Line() string {
	if h.Kind == KindSliceRequest {
		return h.sliceRequestLine()
	}
	var cmds []string
	alternative := ""
	for _, c := range h.Commands() {
		switch {
		case strings.HasPrefix(c, liqoctlAlternative):
			alternative = "; " + strings.TrimPrefix(c, "# ")
		case !strings.HasPrefix(c, "#"):
			cmds = append(cmds, c)
		}
	}
	return h.Title() + " " + strings.Join(cmds, "; then ") + alternative
}

func (h Handoff) file() string {
	if h.File != "" {
		return h.File
	}
	return h.Kind.FileName()
}

// pinFlag is the receiver's flag pinning the sender (" --consumer-fingerprint
// SHA256:…"), "" without a pin.
func (h Handoff) pinFlag() string {
	if h.Pin == "" {
		return ""
	}
	if h.Kind == KindTenant {
		return " --consumer-fingerprint " + h.Pin
	}
	return " --provider-fingerprint " + h.Pin
}
