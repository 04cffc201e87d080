package handshake

import (
	"strings"
	"testing"
)

// The word to the provider's admin about a consumer's request: who waits
// for what, the two ways to serve it, where it shows; on one line the ways
// are alternatives.
func TestSliceRequestHandoff(t *testing.T) {
	h := SliceAnswer{ConsumerID: "c1", Namespace: "liqo-tenant-c1"}.Handoff("p1", "pool")
	if got, want := h.Title(), "Next, on the provider p1, while consumer c1 waits for the answer to ResourceSlice pool:"; got != want {
		t.Errorf("Title() = %q, want %q", got, want)
	}
	want := []string{
		"# if neither Liqo nor liqo-auth-controller runs there, one of:",
		"liqo-auth-tui install controller",
		"liqo-auth-tui --role provider --remote-cluster-id c1",
		"# (the wizard: go on to its summary and keep it open: it answers meanwhile)",
		"# the request there: kubectl get resourceslices.authentication.liqo.io pool -n liqo-tenant-c1",
	}
	if got := h.Commands(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Commands() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := h.Line(), "Next, on the provider p1, while consumer c1 waits for the answer to ResourceSlice pool: if neither Liqo nor "+
		"liqo-auth-controller runs there, liqo-auth-tui install controller, or keep the wizard (liqo-auth-tui --role provider --remote-cluster-id c1) "+
		"open on its summary meanwhile"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	if got := h.Text(); !strings.HasPrefix(got, h.Title()+"\n# if neither") || !strings.HasSuffix(got, "-n liqo-tenant-c1\n") {
		t.Errorf("Text() = %q", got)
	}
	if KindSliceRequest.Receiver() != RoleProvider || KindSliceRequest.FileName() != "resourceslice-request.txt" {
		t.Error("a ResourceSlice request goes to the provider")
	}
	// Unknown namespace: Liqo's name for it.
	if got := (SliceAnswer{ConsumerID: "c1"}).Handoff("p1", "pool").Commands()[4]; !strings.HasSuffix(got, "-n liqo-tenant-c1") {
		t.Errorf("%q", got)
	}
}

func TestAnswerer(t *testing.T) {
	for a, needs := range map[Answerer]bool{AnswererUnknown: true, AnswererAssumed: true, AnswererLiqo: false, AnswererController: false, AnswererInProcess: false} {
		if a.NeedsProviderAdmin() != needs {
			t.Errorf("%q.NeedsProviderAdmin() = %t", a, !needs)
		}
		if who := a.Who("p1"); !strings.Contains(who, "provider p1") {
			t.Errorf("%q.Who() = %q", a, who)
		}
	}
	if got := DeleteSliceCommand("pool", "p1"); got != "liqo-auth-tui delete resourceslice pool --remote-cluster-id p1" {
		t.Errorf("DeleteSliceCommand() = %q", got)
	}
}
