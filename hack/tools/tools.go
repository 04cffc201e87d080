//go:build tools

// Package tools imports the code generators so that `go mod tidy` keeps every
// module they need in go.sum. It is never compiled into the project.
package tools

import (
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
