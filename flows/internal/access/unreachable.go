package access

import (
	"errors"
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// AdvertisedUnreachableError is a provider's advertised API server that
// does not answer from this machine: one line with what failed and what to
// do.
type AdvertisedUnreachableError struct {
	Reach *kube.ReachError
}

func (e *AdvertisedUnreachableError) Error() string {
	via := ""
	if e.Reach.Proxy != "" {
		via = " through the proxy " + e.Reach.Proxy
	}
	return fmt.Sprintf("the provider's advertised API server %s does not answer from this machine%s: %s: %s "+
		"(ask the provider's admin to advertise an address consumers reach: --api-server-override, or e on the wizard's advertise screen)",
		e.Reach.Server, via, e.Reach.Class, rootMessage(e.Reach))
}

func (e *AdvertisedUnreachableError) Unwrap() error { return e.Reach }

// rootMessage is the ReachError's cause without its own "cannot use" prefix.
func rootMessage(r *kube.ReachError) string {
	msg := r.Error()
	if i := strings.LastIndex(msg, string(r.Class)+": "); i >= 0 {
		msg = msg[i+len(r.Class)+2:]
	}
	return msg
}

// AdvertisedUnreachable turns the failure to reach a provider's advertised
// API server (a *kube.ReachError, as from Verify) into the one line that
// says so; other errors come back unchanged.
func AdvertisedUnreachable(err error) error {
	var reach *kube.ReachError
	if !errors.As(err, &reach) || reach.Class == kube.FailureUnauthorized || reach.Class == kube.FailureForbidden {
		return err
	}
	return &AdvertisedUnreachableError{Reach: reach}
}
