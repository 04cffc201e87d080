package cmd

import (
	"github.com/spf13/pflag"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The pins: the fingerprint of what the other admin sends, learnt through
// another channel (their `liqo-auth-tui info`), so that an artifact
// replaced in transit is refused before anything is written.
const (
	consumerPinFlag = "consumer-fingerprint"
	providerPinFlag = "provider-fingerprint"
)

// The pin flags' usage has no backquotes: pflag would show the quoted
// words as the flag's value name.
func addConsumerPinFlag(fl *pflag.FlagSet, pin *string) {
	fl.StringVar(pin, consumerPinFlag, "", "provider: refuse a Tenant not made with this consumer key (SHA256:…, the \"Key fingerprint\" that liqo-auth-tui info prints on the consumer)")
}

func addProviderPinFlag(fl *pflag.FlagSet, pin *string) {
	fl.StringVar(pin, providerPinFlag, "", "consumer: refuse an Identity or peer info not from this provider (SHA256:…, the \"Provider fingerprint\" that liqo-auth-tui info prints on the provider)")
}

// infoView is `info -o json|yaml`: the probe and the provider's pin.
type infoView struct {
	*flows.ClusterInfo
	ProviderFingerprint string `json:"providerFingerprint,omitempty"`
}

// printCode prints the verification code of a hand-off (none when it
// could not be read: the flow's own checks tell why), in the wizard's
// words; sent: this side made the artifact.
func (o *Options) printCode(code string, err error, kind handshake.ArtifactKind, sent bool) {
	if err != nil || code == "" {
		return
	}
	hint := handshake.CodeReceivedHint(kind, true)
	if sent {
		hint = handshake.CodeSentHint(kind)
	}
	o.Printer.Info(handshake.NoScope, "%s. %s", handshake.CodeLine(kind, code), hint)
}

// checkPins refuses a pin that would be ignored: the wizard and the
// automated mode (both kubeconfigs) take none, and each side pins only
// the other (the provider the consumer's key, the consumer the provider).
func (f SessionFlags) checkPins() error {
	if f.ConsumerFingerprint == "" && f.ProviderFingerprint == "" {
		return nil
	}
	if _, err := parsePin(consumerPinFlag, f.ConsumerFingerprint); err != nil {
		return err
	}
	if _, err := parsePin(providerPinFlag, f.ProviderFingerprint); err != nil {
		return err
	}
	switch {
	case !f.Batch:
		return usagef("--%s and --%s are for --batch and the apply commands: the wizard asks both admins to compare a verification code instead", consumerPinFlag, providerPinFlag)
	case f.Remote.Kubeconfig != "" || f.Remote.Context != "":
		return usagef("--%s and --%s pin an artifact handed over by another admin: with --remote-kubeconfig nothing is handed over; drop them", consumerPinFlag, providerPinFlag)
	case f.Role == "provider" && f.ProviderFingerprint != "":
		return usagef("--%s is the consumer's: the provider pins the consumer's key with --%s", providerPinFlag, consumerPinFlag)
	case f.Role == "consumer" && f.ConsumerFingerprint != "":
		return usagef("--%s is the provider's: the consumer pins the provider with --%s", consumerPinFlag, providerPinFlag)
	}
	return nil
}

// parsePin is artifact.ParsePin, its refusal a usage error.
func parsePin(flag, pin string) (string, error) {
	pin, err := artifact.ParsePin(flag, pin)
	if err != nil {
		return "", usagef("%v", err)
	}
	return pin, nil
}
