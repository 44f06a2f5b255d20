//go:build !unix

package upstream

import "os/exec"

// detach does nothing where process groups are not Unix's.
func detach(*exec.Cmd) {}
