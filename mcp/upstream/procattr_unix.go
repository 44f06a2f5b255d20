//go:build unix

package upstream

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a process group of its own: a terminal's Ctrl-C
// (sent to the whole foreground group) then reaches this process only,
// which stops the server in order — its calls drained, its stdin closed —
// instead of the server dying under calls in flight.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
