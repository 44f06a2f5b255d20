package redistest

import "syscall"

// sysProcAttr kills redis-server when the test binary dies before its
// cleanup ran (a panic, a timeout, SIGKILL).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
