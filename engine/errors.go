package engine

import (
	"errors"
	"fmt"
)

// ActivityError is how an activity's error crosses the engine boundary:
// only its message, a type name and whether it may be retried survive, as
// they would through a durable engine.
type ActivityError struct {
	// Activity is the activity's name.
	Activity string
	// Type classifies the error for callers (for example "timeout").
	Type string
	// Message is the original error's text.
	Message string
	// NonRetryable errors are not retried.
	NonRetryable bool
	// Cause is the engine's sentinel behind the failure ([ErrTimeout],
	// [ErrCanceled], wrapped with the engine's detail) or nil; errors.Is
	// sees through it.
	Cause error `json:"-"`
}

// Error implements error.
func (e *ActivityError) Error() string {
	return fmt.Sprintf("engine: activity %s: %s", e.Activity, e.Message)
}

// Unwrap returns the failure's cause.
func (e *ActivityError) Unwrap() error { return e.Cause }

// nonRetryable marks an error that retrying cannot fix.
type nonRetryable struct{ err error }

func (e nonRetryable) Error() string { return e.err.Error() }
func (e nonRetryable) Unwrap() error { return e.err }

// NewNonRetryableError marks err so the engine does not retry the activity
// that returned it.
func NewNonRetryableError(err error) error {
	if err == nil {
		return nil
	}
	return nonRetryable{err: err}
}

// IsNonRetryable reports whether err was marked with NewNonRetryableError.
func IsNonRetryable(err error) bool {
	var nr nonRetryable
	return errors.As(err, &nr)
}
