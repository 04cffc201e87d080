package version

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func buildInfo(mainVersion string, settings ...string) *debug.BuildInfo {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/m", Version: mainVersion}}
	for i := 0; i+1 < len(settings); i += 2 {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
	}
	return bi
}

func TestStampedValuesWin(t *testing.T) {
	bi := buildInfo("v0.0.0-20260101000000-aaaaaaaaaaaa", "vcs.revision", "aaaaaaaaaaaa", "vcs.modified", "false")
	got := info(bi, "v0.3.0", "1a2b3c4d5e6f", "")
	if got.Version != "v0.3.0" || got.Revision != "1a2b3c4d5e6f" || got.Dirty {
		t.Fatalf("info = %+v", got)
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	if s := got.String("liqo-auth-tui"); s != "liqo-auth-tui v0.3.0 (rev 1a2b3c4, go1.26.8, "+platform+")" {
		t.Fatalf("String = %q", s)
	}
}

func TestFallsBackToEmbeddedBuildInfo(t *testing.T) {
	bi := buildInfo("v0.2.1", "vcs.revision", "1a2b3c4d5e6f", "vcs.modified", "true", "vcs.time", "2026-01-02T03:04:05Z")
	got := info(bi, "", "", "2026-01-03T00:00:00Z")
	want := BuildInfo{Version: "v0.2.1", Revision: "1a2b3c4d5e6f", Dirty: true, CommitTime: "2026-01-02T03:04:05Z",
		BuildTime: "2026-01-03T00:00:00Z", GoVersion: "go1.26.8", Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if got != want {
		t.Fatalf("info = %+v, want %+v", got, want)
	}
	if s := got.String("c"); !strings.HasPrefix(s, "c v0.2.1 (rev 1a2b3c4, dirty, built 2026-01-03T00:00:00Z, go1.26.8, ") {
		t.Fatalf("String = %q", s)
	}
}

func TestDevelopmentBuild(t *testing.T) {
	got := info(buildInfo("(devel)"), "", "", "")
	if got.Version != "dev" || got.Revision != "" || got.Dirty {
		t.Fatalf("info = %+v", got)
	}
	if s := got.String("c"); strings.Contains(s, "rev") {
		t.Fatalf("String = %q", s)
	}
	// No build info at all (a binary built without module support).
	if got := info(nil, "", "", ""); got.Version != "dev" || got.GoVersion != runtime.Version() {
		t.Fatalf("info(nil) = %+v", got)
	}
}

func TestGitDescribeDirtyMarksDirty(t *testing.T) {
	if got := info(buildInfo("(devel)"), "v0.3.0-4-g1a2b3c4-dirty", "", ""); !got.Dirty {
		t.Fatalf("info = %+v", got)
	}
}

func TestJSONKeys(t *testing.T) {
	b, err := json.Marshal(info(buildInfo("(devel)", "vcs.revision", "abc"), "v1", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "revision", "goVersion", "platform"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON %s lacks %q", b, k)
		}
	}
	if _, ok := m["dirty"]; ok {
		t.Errorf("JSON %s has dirty for a clean build", b)
	}
}

// The test binary itself has build info: Info must not panic and must
// name a version.
func TestInfoOfThisBinary(t *testing.T) {
	if got := Info(); got.Version == "" || got.GoVersion == "" {
		t.Fatalf("Info = %+v", got)
	}
}
