package wizardbackend

import (
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// explainScoped is explainErr for a failure about one of the two clusters.
func explainScoped(scope handshake.Scope, err error) error {
	if err == nil {
		return nil
	}
	return flows.Explain(err).About(scope)
}

// explainErr is flows.Explain as the wizard shows a failure (nil for nil).
func explainErr(err error) error {
	if err == nil {
		return nil
	}
	return flows.Explain(err)
}
