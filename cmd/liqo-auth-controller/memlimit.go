package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"k8s.io/apimachinery/pkg/api/resource"
)

// heapShareOfLimit is the share of --memory-limit given to the Go heap as
// its soft limit: the rest is for stacks, the runtime and buffers outside
// the heap. Past it the garbage collector runs more often instead of
// letting the heap grow to twice what is live (GOGC=100), which at 10,000
// Tenants is what put the process over a 256Mi container limit.
const heapShareOfLimit = 0.85

// applyMemoryLimit sets the Go heap's soft limit from --memory-limit (the
// Deployment passes its container's memory limit). GOMEMLIMIT, when set,
// wins: it is the runtime's own knob.
func applyMemoryLimit(limit string) error {
	if limit == "" || limit == "0" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	q, err := resource.ParseQuantity(limit)
	if err != nil || q.Sign() <= 0 {
		return fmt.Errorf("--memory-limit %q: want a size like 256Mi or a number of bytes", limit)
	}
	debug.SetMemoryLimit(int64(float64(q.Value()) * heapShareOfLimit))
	return nil
}
