package handshake

import (
	"strings"
	"testing"
)

func TestInBandExplainsAndSaysWhatToDo(t *testing.T) {
	alone, with := InBand(""), InBand("http://10.70.0.5:8118")
	for _, line := range []string{alone, with} {
		if !strings.HasPrefix(line, "--in-band is Liqo's in-band peering") || !strings.Contains(line, "network fabric") || strings.Contains(line, "\n") {
			t.Errorf("not one line explaining --in-band: %q", line)
		}
	}
	if !strings.HasSuffix(alone, "with --proxy-url http://HOST:PORT") {
		t.Errorf("--in-band alone must say to give --proxy-url: %q", alone)
	}
	if !strings.HasSuffix(with, "using --proxy-url http://10.70.0.5:8118 as the Tenant's proxyURL") {
		t.Errorf("--in-band with --proxy-url must say the proxy is used: %q", with)
	}
}
