package doctor

import (
	"context"
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/serving"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// controllerVerdict says what serves a side that left ref undone: no
// controller at all, or the one that runs and the last Warning it gave
// about ref.
func (d *run) controllerVerdict(ctx context.Context, s *side, ref kube.ObjectRef) string {
	ctx, cancel := context.WithTimeout(ctx, 2*d.dialTimeout())
	defer cancel()
	engine, err := serving.Detect(ctx, s.cluster)
	switch {
	case err != nil:
		return "could not tell which controller serves the " + string(s.role) + ": " + err.Error()
	case engine == "":
		return "no controller runs on the " + string(s.role) + " (nor Liqo)"
	}
	if w := s.cluster.LatestWarning(ctx, ref); w != nil {
		return fmt.Sprintf("the %s's %s failed: %s: %s", s.role, engine, w.Reason, w.Message)
	}
	return fmt.Sprintf("the %s's %s did nothing about it yet (no Warning on the %s)", s.role, engine, ref.Kind)
}
