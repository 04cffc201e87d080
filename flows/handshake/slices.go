package handshake

import "strings"

// KindSliceRequest is the word a consumer's admin hands to the provider's
// admin before requesting resources (§10.1): which ResourceSlice waits for
// the provider's controller, and what to run there if nothing serves it.
// Nothing in it is applied: the slice itself travels by replication.
const KindSliceRequest ArtifactKind = "ResourceSlice request"

// SliceResource is the ResourceSlice's full name for kubectl: Kubernetes
// 1.34+ serves resource.k8s.io's ResourceSlice (dynamic resource
// allocation) too, and a bare "resourceslice" names that one.
const SliceResource = "resourceslices.authentication.liqo.io"

// DeleteSliceCommand removes a consumer's ResourceSlice (its Identity and
// kubeconfig Secret go with it; the replicator removes its copy on the
// provider).
func DeleteSliceCommand(name, providerID string) string {
	return "liqo-auth-tui delete resourceslice " + name + " --remote-cluster-id " + providerID
}

// Answerer is what answers a consumer's ResourceSlices on the provider, as
// far as the consumer's side can tell.
type Answerer string

const (
	// AnswererUnknown: the provider runs no Liqo, and whether this
	// project's controller runs there cannot be seen from the consumer (its
	// credentials may not read the controller's Lease).
	AnswererUnknown Answerer = ""
	// AnswererLiqo: Liqo's controller-manager.
	AnswererLiqo Answerer = "liqo"
	// AnswererController: liqo-auth-controller, seen running.
	AnswererController Answerer = "controller"
	// AnswererInProcess: this run serves the provider in-process while it
	// waits (both kubeconfigs at hand).
	AnswererInProcess Answerer = "in-process"
	// AnswererAssumed: the provider's in-cluster controller is relied on,
	// unchecked (a peering user may not read its Lease).
	AnswererAssumed Answerer = "controller-assumed"
)

// Who says in one sentence who signs a ResourceSlice for providerID.
func (a Answerer) Who(providerID string) string {
	switch a {
	case AnswererLiqo:
		return "Liqo's controller-manager on provider " + providerID + " answers it."
	case AnswererController:
		return "liqo-auth-controller on provider " + providerID + " answers it."
	case AnswererInProcess:
		return "This run serves provider " + providerID + " in-process while it waits for the answer (nothing else serves it)."
	case AnswererAssumed:
		return "The controller of provider " + providerID + " must answer it; this kubeconfig may not check that one runs there."
	}
	return "The controller of provider " + providerID + " must answer it: it runs no Liqo, and whether liqo-auth-controller runs there " +
		"cannot be seen from the consumer. If nothing serves it, the request waits unanswered."
}

// NeedsProviderAdmin tells whether the provider's admin may have to act
// for the request to be answered: nothing known serves the provider.
func (a Answerer) NeedsProviderAdmin() bool {
	return a == AnswererUnknown || a == AnswererAssumed
}

// SliceAnswer is who answers a consumer's ResourceSlices on a provider.
type SliceAnswer struct {
	Answerer Answerer
	// ConsumerID is the consumer's cluster ID; Namespace its tenant
	// namespace on the provider, where the copies show ("" = unknown).
	ConsumerID, Namespace string
}

// Handoff is the word to the provider's admin about the slice.
func (a SliceAnswer) Handoff(providerID, slice string) Handoff {
	return Handoff{Kind: KindSliceRequest, SenderID: a.ConsumerID, ReceiverID: providerID, Slice: slice, Namespace: a.Namespace}
}

// sliceRequestTitle: "Next, on the provider p1, while consumer c1 waits
// for the answer to ResourceSlice s1:".
func (h Handoff) sliceRequestTitle() string {
	title := "Next, on the provider"
	if h.ReceiverID != "" {
		title += " " + h.ReceiverID
	}
	consumer := "the consumer"
	if h.SenderID != "" {
		consumer = "consumer " + h.SenderID
	}
	return title + ", while " + consumer + " waits for the answer to ResourceSlice " + h.Slice + ":"
}

// sliceRequestCommands: what serves the request on the provider, for good
// or while the consumer waits, and where it shows there.
func (h Handoff) sliceRequestCommands(tool string) []string {
	consumer := h.SenderID
	if consumer == "" {
		consumer = "<consumer cluster ID>"
	}
	ns := h.Namespace
	if ns == "" {
		ns = "liqo-tenant-" + consumer
	}
	return []string{
		"# if neither Liqo nor liqo-auth-controller runs there, one of:",
		tool + " install controller",
		tool + " --role provider --remote-cluster-id " + consumer,
		"# (the wizard: go on to its summary and keep it open: it answers meanwhile)",
		"# the request there: kubectl get " + SliceResource + " " + h.Slice + " -n " + ns,
	}
}

// sliceRequestLine is the request's hand-off on one line: the two ways,
// as alternatives.
func (h Handoff) sliceRequestLine() string {
	cmds := h.Commands()
	return h.Title() + " if neither Liqo nor liqo-auth-controller runs there, " + cmds[1] +
		", or keep the wizard (" + cmds[2] + ") open on its summary meanwhile"
}

// Text is the title and the commands, one per line: what is copied or
// saved when the hand-off itself is the message.
func (h Handoff) Text() string {
	return h.Title() + "\n" + strings.Join(h.Commands(), "\n") + "\n"
}

// DefaultSliceName is the name a resource request offers by default.
// liqoctl peer names the ResourceSlice after the provider's cluster ID, and
// so does this tool while that ID reads as a name; an ID that is a UUID
// (what Liqo's Helm chart and init generate) would name the slice, and the
// virtual node made from it, unreadably: the provider's kubeconfig context
// stands in ("" = unknown), else "provider-" and the UUID's first group.
func DefaultSliceName(providerID, providerContext string) string {
	if !isUUID(providerID) {
		return providerID
	}
	if name := dnsLabel(providerContext); name != "" && name != "default" && !isUUID(name) {
		return name
	}
	return "provider-" + providerID[:8]
}

// isUUID: 8-4-4-4-12 hexadecimal digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range strings.ToLower(s) {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}

// dnsLabel turns s into a DNS-1123 label (lowercase letters, digits and
// inner hyphens, at most 63): "kind-Provider_1" is "kind-provider-1".
func dnsLabel(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
		default:
			dash = true
		}
	}
	out := b.String()
	if len(out) > 63 {
		out = strings.TrimRight(out[:63], "-")
	}
	return out
}
