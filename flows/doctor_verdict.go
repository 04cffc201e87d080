package flows

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// controllerVerdict says what serves a cluster that left ref undone: no
// controller at all, or the one that runs and the last Warning it gave
// about ref.
func controllerVerdict(ctx context.Context, d *doctorRun, c *Cluster, side string, ref objectRef) string {
	ctx, cancel := context.WithTimeout(ctx, 2*d.dialTimeout())
	defer cancel()
	engine, err := detectEngine(ctx, c)
	switch {
	case err != nil:
		return "could not tell which controller serves the " + side + ": " + err.Error()
	case engine == "":
		return "no controller runs on the " + side + " (nor Liqo)"
	}
	if w := lastWarning(ctx, c, ref); w != nil {
		return fmt.Sprintf("the %s's %s failed: %s: %s", side, engine, w.Reason, w.Message)
	}
	return fmt.Sprintf("the %s's %s did nothing about it yet (no Warning on the %s)", side, engine, ref.Kind)
}

// lastWarning is the latest Warning Event about ref (nil: none, or the
// Events cannot be read).
func lastWarning(ctx context.Context, c *Cluster, ref objectRef) *corev1.Event {
	list, err := c.Events(ctx, ref.Namespace, eventSelector(ref))
	if err != nil {
		return nil
	}
	var last *corev1.Event
	for i := range list.Items {
		e := &list.Items[i]
		if e.Type == corev1.EventTypeWarning && (last == nil || eventTime(e).After(eventTime(last))) {
			last = e
		}
	}
	return last
}
