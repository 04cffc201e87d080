package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// What a new admin tripped over on the screens, each fixed.

// The address and CA fields, empty, show their placeholders whole (a
// textinput without a width showed one letter: "> h", "> p").
func TestAdvertiseEditShowsWholePlaceholders(t *testing.T) {
	f := newFake()
	f.advertisement = fakeAdvertisement()
	h, _ := resumeAtIdentity(t, f)
	h.key("e")
	for _, w := range []int{80, 120} {
		h.send(tea.WindowSizeMsg{Width: w, Height: 30})
		h.mustSee("> https://host:port (empty = the provider's default)", "> CA PEM file, 'trusted' (publicly trusted), empty = default")
	}
}

// tenantHandoff brings a manual consumer to the Tenant's hand-off.
func tenantHandoff(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, newFake(), consumerOnly())
	h.key("enter", "enter")
	h.send(tea.PasteMsg{Content: fakeNonce})
	h.key("ctrl+s", "y")
	screenIs[*handoffScreen](t, h)
	return h
}

// The save field offers its default as a placeholder: what the admin types
// replaces it (it was appended: ./tenant.yamlmine.yaml), and enter on the
// empty field saves under the default.
func TestSaveFieldTypingReplacesTheDefault(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	h := tenantHandoff(t)
	h.key("s")
	h.mustSee("save as: ./tenant.yaml")
	h.typeText("mine.yaml")
	h.key("enter")
	h.mustSee("Saved to mine.yaml")
	mustBeSaved(t, filepath.Join(dir, "mine.yaml"), tenantYAML)

	// Emptied, the field saves under the default.
	h.key("s", "ctrl+u", "enter")
	h.mustSee("Saved to ./tenant.yaml")
	mustBeSaved(t, filepath.Join(dir, "tenant.yaml"), tenantYAML)

	// The receive screen's file field too.
	h.key("enter")
	r := screenIs[*receiveScreen](t, h)
	idPath := filepath.Join(dir, "the-identity.yaml")
	if err := os.WriteFile(idPath, []byte(identityYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	h.key("tab")
	h.mustSee("file: ./identity.yaml")
	h.typeText(idPath)
	h.key("enter")
	if r.err != nil || r.art == nil {
		t.Fatalf("typing a path did not read it: %v", r.err)
	}
}

// Enter uses a pasted artifact once it is valid (it did nothing: only
// ctrl+s did); before, it is a new line, and the screen says so.
func TestReceiveEnterUsesAValidArtifact(t *testing.T) {
	h := newHarness(t, newFake(), consumerOnly())
	h.key("enter", "enter")
	r := screenIs[*receiveScreen](t, h)
	h.mustSee("once it is valid, enter or ctrl+s uses it")
	h.send(tea.PasteMsg{Content: "abc"})
	h.key("enter")
	if r.confirm {
		t.Fatal("enter used an invalid nonce")
	}
	h.key("ctrl+l")
	h.send(tea.PasteMsg{Content: fakeNonce})
	h.mustSee("a valid nonce", "enter/ctrl+s use it")
	h.key("enter")
	if !r.confirm {
		t.Fatalf("enter did not use the valid nonce:\n%s", h.view())
	}
	h.mustSee("Sign this nonce")
}

// q before anything was written quits at once, as no interruption (it
// asked "Quit before the handshake is finished?" and exited 130); once a
// step wrote, it asks.
func TestQuitBeforeAnyWriteIsNoInterruption(t *testing.T) {
	h := newHarness(t, newFake(), both())
	screenIs[*detectScreen](t, h)
	h.key("q")
	if !h.quit || h.m.aborted || h.m.confirmQuit {
		t.Fatalf("q before any write: quit %v aborted %v asked %v", h.quit, h.m.aborted, h.m.confirmQuit)
	}

	h = tenantHandoff(t) // the Tenant was generated: written
	h.key("q")
	if !h.m.confirmQuit || h.quit {
		t.Fatal("q after a write did not ask")
	}
	h.key("y")
	if !h.quit || !h.m.aborted {
		t.Fatalf("quit %v aborted %v", h.quit, h.m.aborted)
	}
}

// The full help shows more than the short bar: how to quit from a text
// field and, there, the editing keys; in a text field f1 opens it (? is
// typed).
func TestFullHelpShowsTheOtherKeys(t *testing.T) {
	h := newHarness(t, newFake(), both())
	short := h.view()
	h.key("?")
	h.mustSee("ctrl+c quit, also in a text field", "fewer keys")
	if h.view() == short {
		t.Fatal("? changed nothing")
	}

	h = newHarness(t, newFake(), consumerOnly())
	h.key("enter", "enter")
	screenIs[*receiveScreen](t, h)
	h.mustSee("f1 more keys")
	h.key("f1")
	h.mustSee("delete to line start", "delete a word", "fewer keys")
}

// The summary says how far the certificate's end is in verify's words
// (same text, same rounding), and redraws itself so that "Last renewal
// (just now)" ages.
func TestSummaryExpiryAsVerifyAndRenewalAges(t *testing.T) {
	f := newFake()
	f.lastRenewal = fixedNow
	h := newHarness(t, f, both())
	h.key("enter")
	sc := screenIs[*summaryScreen](t, h)
	h.mustSee("Certificate expires: 2027-01-01 12:00 UTC ("+handshake.ExpiresIn(fakeExpiry, fixedNow)+")", "(in 365d)",
		"Last renewal:        2026-01-01 12:00 UTC (just now)")

	if sc.clockGen == 0 {
		t.Fatal("the summary does not redraw as time passes")
	}
	later := fixedNow.Add(90 * time.Second)
	h.m.s.opts.now = func() time.Time { return later }
	_, next := h.m.Update(clockTickMsg{gen: sc.clockGen})
	if next == nil {
		t.Fatal("the summary stopped redrawing")
	}
	if msg := next(); msg != (clockTickMsg{gen: sc.clockGen}) {
		t.Fatalf("next redraw: %#v", msg)
	}
	h.mustSee("Last renewal:        2026-01-01 12:00 UTC (90s ago)")
	// A tick of a summary shown before does not start a second chain.
	if _, next := h.m.Update(clockTickMsg{gen: sc.clockGen - 1}); next != nil {
		t.Fatal("an old tick redraws too")
	}
}

// The header says what manual mode means here, never "manual:" alone.
func TestHeaderSaysWhatManualMeans(t *testing.T) {
	h := newHarness(t, newFake(), consumerOnly())
	title := func() string { return strings.TrimSpace(strings.Split(ansi.Strip(h.m.header(120)), "\n")[0]) }
	if got := title(); !strings.HasSuffix(got, "· manual: consumer, provider by hand-off") {
		t.Fatalf("header %q", got)
	}
	h.m.s.localRole = handshake.RoleUnknown
	if got := title(); !strings.HasSuffix(got, "· manual: which side is this?") {
		t.Fatalf("header %q", got)
	}
}

// A provider whose cluster ID is a UUID gets a readable default slice
// name: its kubeconfig context here (liqoctl's convention, the ID, when it
// reads as a name).
func TestSliceDefaultNameIsReadable(t *testing.T) {
	const uuid = "418885f6-4b86-426a-b20d-7937cb34de04"
	h := newHarness(t, newFake(), both())
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.m.s.auth.ProviderID = uuid
	h.key("r")
	m := screenIs[*slicesScreen](t, h)
	if got := m.request().Name; got != "provider" {
		t.Fatalf("default name %q, want the provider's context", got)
	}
}
