//go:build !linux

package redistest

import "syscall"

// sysProcAttr: only Linux kills the child when its parent dies.
func sysProcAttr() *syscall.SysProcAttr { return nil }
