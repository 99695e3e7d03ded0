package cli

import (
	"errors"
	"fmt"
)

// Exit codes. They are part of repotool's interface: scripts, pre-commit and
// CI depend on them.
const (
	// ExitOK: the command succeeded and found nothing at or above the threshold.
	ExitOK = 0
	// ExitFindings: the command ran and found problems (layout errors, lint
	// findings at or above --fail-on, targets that failed to render).
	ExitFindings = 1
	// ExitError: usage error, invalid configuration, unreadable repository or
	// internal error.
	ExitError = 2
	// ExitDeletion: diff --fail-on-delete found a deletion nobody approved
	// (--allow-delete): a generated Application or AppProject, or a
	// target's objects wholesale.
	ExitDeletion = 3
	// ExitInterrupted: the run was interrupted (SIGINT, SIGTERM), the
	// shell's convention for a command ended by Ctrl-C. Nothing more was
	// written; files already written are whole.
	ExitInterrupted = 130
)

// exitError carries an exit code up to Run. A nil Err means the command
// already reported what happened and only the code is left to return.
type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *exitError) Unwrap() error { return e.Err }

// findings returns the error a command returns when it ran fine but found
// problems it has already printed.
func findings() error { return &exitError{Code: ExitFindings} }

// usageErr marks err as a usage or configuration error (exit 2).
func usageErr(err error) error { return &exitError{Code: ExitError, Err: err} }

// exitCode maps an error returned by a command to a process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitError
}
