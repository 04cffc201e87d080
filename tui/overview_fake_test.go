package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// overviewFake scripts the overview's backend methods.
type overviewFake struct {
	// lists are the overviews in order: Overview answers the first,
	// WatchOverview sends them all, then closes (as at the wizard's end:
	// a test's commands all return).
	lists [][]OverviewRow
	// checks are what Diagnose answers, repaired what ApplyRepair does;
	// left what Unauthenticate leaves.
	checks, repaired []DoctorCheck
	left             []string
	// repairs are the checks ApplyRepair got.
	repairs []DoctorCheck
	// unauths are the requests Unauthenticate got.
	unauths []UnauthRequest
}

func refName(r *ClusterRef) string {
	if r == nil {
		return "-"
	}
	return r.Context
}

func (f *fakeBackend) Overview(_ context.Context, c ClusterRef, remote *ClusterRef) ([]OverviewRow, error) {
	if err := f.record("Overview %s %s", c.Context, refName(remote)); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.overview.lists) == 0 {
		return nil, nil
	}
	return f.overview.lists[0], nil
}

func (f *fakeBackend) WatchOverview(_ context.Context, c ClusterRef, remote *ClusterRef) (<-chan []OverviewRow, error) {
	if err := f.record("WatchOverview %s %s", c.Context, refName(remote)); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan []OverviewRow, len(f.overview.lists))
	for _, rows := range f.overview.lists {
		ch <- rows
	}
	close(ch)
	return ch, nil
}

func (f *fakeBackend) Diagnose(_ context.Context, c ClusterRef, remote *ClusterRef, remoteID string) ([]DoctorCheck, error) {
	if err := f.record("Diagnose %s %s %s", c.Context, refName(remote), remoteID); err != nil {
		return nil, err
	}
	return f.overview.checks, nil
}

func (f *fakeBackend) ApplyRepair(_ context.Context, c ClusterRef, remote *ClusterRef, remoteID string, check DoctorCheck) ([]DoctorCheck, error) {
	if err := f.record("ApplyRepair %s %s %s %s", c.Context, refName(remote), remoteID, check.Key); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.overview.repairs = append(f.overview.repairs, check)
	return f.overview.repaired, nil
}

func (f *fakeBackend) MoveQuestion(move TenantMove, consumerID string) string {
	switch move {
	case MoveCordon, MoveDrain:
		return fmt.Sprintf("%s is a potentially destructive command: consumer %s is affected (fake)", move, consumerID)
	}
	return ""
}

func (f *fakeBackend) MoveTenant(_ context.Context, provider ClusterRef, consumerID string, move TenantMove, sink handshake.Sink) error {
	if err := f.record("MoveTenant %s %s %s", provider.Context, consumerID, move); err != nil {
		return err
	}
	sink(handshake.Event{Kind: handshake.StepDone, Message: fmt.Sprintf("Tenant %s %sed (fake)", consumerID, strings.TrimSuffix(string(move), "e"))})
	return nil
}

func (f *fakeBackend) DeleteResourceSlice(_ context.Context, consumer ClusterRef, name, providerID string) error {
	return f.record("DeleteResourceSlice %s %s %s", consumer.Context, name, providerID)
}

func (f *fakeBackend) Unauthenticate(_ context.Context, req UnauthRequest, sink handshake.Sink) ([]string, error) {
	if err := f.record("Unauthenticate %s %s %s %s", refName(req.Consumer), refName(req.Provider), req.ConsumerID, req.ProviderID); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.overview.unauths = append(f.overview.unauths, req)
	sink(handshake.Event{Kind: handshake.StepDone, Message: "Tenant correctly deleted"})
	return f.overview.left, nil
}
