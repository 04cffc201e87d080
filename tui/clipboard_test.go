package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

func TestClipboardPolicyOrder(t *testing.T) {
	for _, tc := range []struct {
		policy ClipboardPolicy
		env    []string
		want   []copyMethod
	}{
		{ClipboardAuto, []string{"DISPLAY=:0"}, []copyMethod{copyNative, copyOSC52}},
		{ClipboardAuto, []string{"DISPLAY=:0", "SSH_TTY=/dev/pts/1"}, []copyMethod{copyOSC52}},
		{ClipboardAuto, nil, []copyMethod{copyOSC52}}, // no display server
		{ClipboardAuto, []string{"WAYLAND_DISPLAY=wayland-0"}, []copyMethod{copyNative, copyOSC52}},
		{ClipboardNative, []string{"SSH_TTY=x"}, []copyMethod{copyNative}},
		{ClipboardOSC52, []string{"DISPLAY=:0"}, []copyMethod{copyOSC52}},
		{ClipboardOff, []string{"DISPLAY=:0"}, nil},
	} {
		s := newSession(t.Context(), Options{Clipboard: tc.policy, Environ: append([]string{"TERM=xterm"}, tc.env...)})
		if got := s.copyMethods(); len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
			t.Errorf("%s %v: %v, want %v", tc.policy, tc.env, got, tc.want)
		}
	}
	if _, err := ParseClipboardPolicy("xclip"); err == nil {
		t.Error("bad policy accepted")
	}
}

func handoffFor(t *testing.T, o Options, art *Artifact) (*handoffScreen, *session) {
	s := newSession(t.Context(), o)
	s.localRole, s.mode, s.peerID = handshake.RoleConsumer, ModeManual, "provider-1"
	return newHandoffScreen(s, art), s
}

func TestCopyOSC52SaysSentNotCopied(t *testing.T) {
	h, _ := handoffFor(t, Options{Clipboard: ClipboardOSC52, Environ: []string{}}, &Artifact{Kind: handshake.KindTenant, Data: []byte(tenantYAML)})
	_, cmd := h.Update(keyPress("c"))
	if cmd == nil {
		t.Fatal("no OSC52 command")
	}
	if !strings.Contains(h.status, "Sent to your terminal's clipboard (OSC52)") || strings.Contains(h.status, "Copied") {
		t.Fatalf("status %q", h.status)
	}
}

func TestNativeCopyFailureFallsBackToOSC52(t *testing.T) {
	o := Options{Clipboard: ClipboardAuto, Environ: []string{"DISPLAY=:0"}}
	o.nativeCopy = func(string) error { return errors.New("xclip: not found") }
	h, _ := handoffFor(t, o, &Artifact{Kind: handshake.KindTenant, Data: []byte(tenantYAML)})
	_, cmd := h.Update(keyPress("c"))
	msg := cmd()
	if _, ok := msg.(copiedMsg); !ok {
		t.Fatalf("native copy returned %T", msg)
	}
	_, cmd = h.Update(msg)
	if cmd == nil || !strings.Contains(h.status, "Native clipboard failed (xclip: not found)") || !strings.Contains(h.status, "OSC52") {
		t.Fatalf("status %q", h.status)
	}
}

func TestNativeCopyTimesOut(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	start := time.Now()
	msg := nativeCopyCmd(func(string) error { <-block; return nil }, "x")().(copiedMsg)
	if !errors.Is(msg.err, errCopyTimeout) || time.Since(start) > nativeTimeout+time.Second {
		t.Fatalf("%v after %s", msg.err, time.Since(start))
	}
}

func TestSensitiveIdentityIsNeverCopied(t *testing.T) {
	copied := false
	o := Options{Clipboard: ClipboardNative, Environ: []string{"DISPLAY=:0"}}
	o.nativeCopy = func(string) error { copied = true; return nil }
	h, _ := handoffFor(t, o, &Artifact{Kind: handshake.KindIdentity, Data: []byte("awsSecretAccessKey: real"), Preview: "awsSecretAccessKey: ********", Sensitive: true})
	if h.keys.Copy.Enabled() {
		t.Fatal("copy offered for credentials")
	}
	_, cmd := h.Update(keyPress("c"))
	if cmd != nil || copied {
		t.Fatal("credentials copied")
	}
	if v := h.View(100, 30); strings.Contains(v, "real") || !strings.Contains(v, "********") {
		t.Fatalf("view shows the secret:\n%s", v)
	}
	if p := h.printable(); strings.Contains(p, "real") {
		t.Fatalf("print shows the secret: %s", p)
	}
}

func TestClipboardOffSaysSo(t *testing.T) {
	h, _ := handoffFor(t, Options{Clipboard: ClipboardOff}, &Artifact{Kind: handshake.KindNonce, Data: []byte(fakeNonce)})
	if h.keys.Copy.Enabled() {
		t.Fatal("copy offered with --clipboard off")
	}
	h.Update(keyPress("c"))
	if !strings.Contains(h.status, "--clipboard off") {
		t.Fatalf("status %q", h.status)
	}
}

func TestOSC52RefusesHugeArtifacts(t *testing.T) {
	cmd, text, ok := osc52(strings.Repeat("x", osc52Limit+1))
	if cmd != nil || ok || !strings.Contains(text, "too large") {
		t.Fatalf("%v %q", ok, text)
	}
}

func TestRunScreenEventsAndCommandPanel(t *testing.T) {
	s := newSession(t.Context(), Options{now: func() time.Time { return fixedNow }})
	r := newRunScreen(s, operation{Title: "x", Phases: []phase{{Title: "a"}, {Title: "verify later"}}})
	r.gen = 7
	r.phases[0].state = stateRunning
	r.events = make(chan tea.Msg, 1)
	r.Update(eventMsg{gen: 7, ev: handshake.Event{Kind: handshake.StepStarted, Step: "wait", Scope: handshake.Remote, Total: 3, Message: "Waiting for nonce", Command: "kubectl get secret liqo-nonce", Time: fixedNow.Add(-1500 * time.Millisecond)}})
	r.Update(eventMsg{gen: 7, ev: handshake.Event{Kind: handshake.ClusterEvent, Scope: handshake.Remote, Reason: "NonceNotFound", Warning: true, Message: "Secret liqo-nonce: missing"}})
	r.Update(eventMsg{gen: 6, ev: handshake.Event{Kind: handshake.StepStarted, Step: "stale", Message: "stale run"}})
	v := r.View(100, 20)
	for _, want := range []string{"(remote) Waiting for nonce", "1.5s", "⚠ Event NonceNotFound", "kubectl get secret liqo-nonce", "○ 2 more step(s)", "○ verify later"} {
		if !strings.Contains(v, want) {
			t.Fatalf("run view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "stale run") {
		t.Fatal("event of an old run shown")
	}
	r.Update(keyPress("tab"))
	if strings.Contains(r.View(100, 20), "Equivalent command") {
		t.Fatal("tab does not hide the command panel")
	}
	r.Update(eventMsg{gen: 7, ev: handshake.Event{Kind: handshake.StepFailed, Step: "wait", Scope: handshake.Remote, Message: "Failed waiting for nonce"}})
	if !strings.Contains(ansi.Strip(r.View(100, 20)), "✗ (remote) Failed waiting for nonce") {
		t.Fatalf("failed step not shown:\n%s", r.View(100, 20))
	}
}
