package main

import (
	"fmt"
	"math"
	"runtime"
)

// wantedConsumers is how many consumers the soak is meant to run.
const wantedConsumers = 100

// consumerCPU is the share of one CPU a consumer takes through the soak
// (its kube-apiserver and controller, its part of the shared etcd and of
// the provider's work): 3-minute certificates, backdated 5 minutes by the
// signer, renew about every 20 s. Measured in the 40-consumer, 30-minute
// run (docs/benchmarks.md, Soak).
const consumerCPU = 0.034

// cpuBudget is the part of the CPUs the consumers may take: the rest is for
// the faults, whose restarts and relists come in bursts.
const cpuBudget = 0.7

// defaultConsumers is wantedConsumers, or as many as this machine's CPUs
// carry when that is fewer (a starved machine fails probes for its own
// sake, not the controller's), with why.
func defaultConsumers(cpus int) (n int, why string) {
	fit := int(float64(cpus) * cpuBudget / consumerCPU)
	if fit >= wantedConsumers {
		return wantedConsumers, ""
	}
	need := int(math.Ceil(wantedConsumers * consumerCPU / cpuBudget))
	return max(fit, 1), fmt.Sprintf("%d consumers: what %d CPUs carry (%d need about %d CPUs; --consumers sets it)", max(fit, 1), cpus, wantedConsumers, need)
}

func machineDefaultConsumers() (int, string) { return defaultConsumers(runtime.NumCPU()) }
