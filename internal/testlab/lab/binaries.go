package lab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Versions of the self-built control plane; hack/install-kube-binaries.sh
// builds exactly these into the same cache folder.
const (
	KubeVersion = "v1.37.1"
	EtcdVersion = "v3.7.0"
)

// BinariesEnv overrides where the control-plane binaries are looked up.
const BinariesEnv = "LIQO_AUTH_KUBE_BINARIES"

// InstallHint is the command that builds the binaries when they are missing.
const InstallHint = "make kube-binaries"

// BinaryDir returns the folder with kube-apiserver, kube-controller-manager
// and etcd, or an error that says how to build them.
func BinaryDir() (string, error) {
	dir := os.Getenv(BinariesEnv)
	if dir == "" {
		root, err := cacheRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, fmt.Sprintf("kube-%s-etcd-%s", KubeVersion, EtcdVersion))
	}
	for _, name := range []string{"kube-apiserver", "kube-controller-manager", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, name)); errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("control-plane binary %s not found in %s: build them with `%s`", name, dir, InstallHint)
		} else if err != nil {
			return "", fmt.Errorf("control-plane binary %s: %w", name, err)
		}
	}
	return dir, nil
}

// cacheRoot is the per-user folder the install scripts build into.
func cacheRoot() (string, error) {
	if root := os.Getenv("LIQO_AUTH_CACHE"); root != "" {
		return root, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("locating the lab's binaries: %w", err)
	}
	return filepath.Join(cache, "liqo-auth-tui"), nil
}
