//go:build linux

package canopy

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the server die with the test binary even if the binary is killed before
// its cleanups run (a timeout, ^C).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
