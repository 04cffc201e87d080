package lab

import (
	"context"
	"errors"
	"sync"
)

// Start starts one cluster per name, in parallel. On error, the clusters
// already started are stopped.
func Start(ctx context.Context, opts Options, names ...string) ([]*Cluster, error) {
	clusters := make([]*Cluster, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { clusters[i], errs[i] = StartCluster(ctx, name, opts) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		StopAll(clusters)
		return nil, err
	}
	return clusters, nil
}

// StopAll stops every non-nil cluster.
func StopAll(clusters []*Cluster) error {
	var errs []error
	for _, c := range clusters {
		if c != nil {
			errs = append(errs, c.Stop())
		}
	}
	return errors.Join(errs...)
}
