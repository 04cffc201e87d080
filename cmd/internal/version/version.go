// Package version tells which build of a binary is running: the version
// and VCS revision stamped by `make build` (-ldflags -X), or else what the
// Go toolchain recorded in the binary (module version, vcs.* settings).
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamped at link time, e.g.
//
//	go build -ldflags "-X github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version.Version=v0.3.0"
//
// Empty values fall back to the build info Go embeds.
var (
	Version   string // e.g. v0.3.0 or git describe's v0.3.0-4-g1a2b3c4-dirty
	Revision  string // full VCS commit hash
	BuildTime string // RFC 3339
)

// BuildInfo describes the running binary.
type BuildInfo struct {
	Version    string `json:"version"`
	Revision   string `json:"revision,omitempty"`
	Dirty      bool   `json:"dirty,omitempty"`
	CommitTime string `json:"commitTime,omitempty"`
	BuildTime  string `json:"buildTime,omitempty"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
}

// Info returns the stamped values, completed from the embedded build info.
func Info() BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return info(bi, Version, Revision, BuildTime)
}

// info is Info with its inputs explicit, for tests.
func info(bi *debug.BuildInfo, version, revision, buildTime string) BuildInfo {
	i := BuildInfo{Version: version, Revision: revision, BuildTime: buildTime,
		GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		i.GoVersion = bi.GoVersion
		if i.Version == "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if i.Revision == "" {
			i.Revision = settings["vcs.revision"]
		}
		i.Dirty = settings["vcs.modified"] == "true"
		i.CommitTime = settings["vcs.time"]
	}
	// git describe --dirty marks a build from a modified tree (the toolchain
	// records nothing when building with -buildvcs=false).
	i.Dirty = i.Dirty || strings.HasSuffix(i.Version, "-dirty")
	if i.Version == "" {
		i.Version = "dev"
	}
	return i
}

// String is a one-line description for --version, e.g.
// "liqo-auth-tui v0.3.0 (rev 1a2b3c4, dirty, go1.26.8)".
func String(binary string) string { return Info().String(binary) }

// String formats i as the version line of binary.
func (i BuildInfo) String(binary string) string {
	var details []string
	if i.Revision != "" {
		details = append(details, "rev "+ShortRevision(i.Revision))
	}
	if i.Dirty {
		details = append(details, "dirty")
	}
	if i.BuildTime != "" {
		details = append(details, "built "+i.BuildTime)
	}
	details = append(details, i.GoVersion, i.Platform)
	return fmt.Sprintf("%s %s (%s)", binary, i.Version, strings.Join(details, ", "))
}

// ShortRevision abbreviates a commit hash the way git does by default.
func ShortRevision(rev string) string {
	if len(rev) > 7 {
		return rev[:7]
	}
	return rev
}
