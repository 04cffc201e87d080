package handshake

import "testing"

func TestRoleOther(t *testing.T) {
	for r, want := range map[Role]Role{RoleConsumer: RoleProvider, RoleProvider: RoleConsumer, RoleUnknown: RoleUnknown} {
		if got := r.Other(); got != want {
			t.Errorf("%q.Other() = %q, want %q", r, got, want)
		}
	}
}

func TestScopePrefix(t *testing.T) {
	for s, want := range map[Scope]string{Local: "(local) ", Remote: "(remote) ", NoScope: ""} {
		if got := s.Prefix(); got != want {
			t.Errorf("%q.Prefix() = %q, want %q", s, got, want)
		}
	}
}

// The zero EventKind is no kind: an Event built without one is a bug that
// front-ends can tell from a StepStarted.
func TestEventKindZeroIsNotAKind(t *testing.T) {
	for _, k := range []EventKind{StepStarted, StepDone, StepFailed, ClusterEvent, Note} {
		if k == 0 {
			t.Fatal("an event kind has the zero value")
		}
	}
}

func TestStageStartedAndDescribe(t *testing.T) {
	notStarted := []Stage{"", StageCreateNonce, StageAwaitNonce}
	started := []Stage{StageAwaitTenant, StageGenerateIdentity, StageAwaitIdentity, StageAuthenticated, StageUnauthenticated}
	for _, s := range notStarted {
		if s.Started() || s.Describe() != "nothing yet" {
			t.Errorf("stage %q: Started()=%v Describe()=%q", s, s.Started(), s.Describe())
		}
	}
	seen := map[string]bool{}
	for _, s := range started {
		d := s.Describe()
		if !s.Started() || d == "" || d == string(s) || seen[d] {
			t.Errorf("stage %q: Started()=%v Describe()=%q", s, s.Started(), d)
		}
		seen[d] = true
	}
}

// An unauthenticated pair is no fault: it needs no attention, and it is
// the mildest verdict after ok.
func TestVerdictNeedsAttention(t *testing.T) {
	for _, v := range verdictOrder {
		want := v != VerdictOK && v != VerdictUnauthenticated
		if got := v.NeedsAttention(); got != want {
			t.Errorf("%q.NeedsAttention() = %v, want %v", v, got, want)
		}
	}
	if VerdictUnauthenticated.Severity() >= VerdictPending.Severity() || VerdictUnauthenticated.Severity() <= VerdictOK.Severity() {
		t.Errorf("unauthenticated's severity %d: not between ok and pending", VerdictUnauthenticated.Severity())
	}
}
