package temporal

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/quiver-go/quiver/engine"
)

// activityFailure turns what ExecuteActivity's future returned into an
// *engine.ActivityError.
func activityFailure(name string, err error) error {
	ae := &engine.ActivityError{Activity: name, Type: typeError, Message: err.Error()}
	var (
		app      *temporal.ApplicationError
		timeout  *temporal.TimeoutError
		canceled *temporal.CanceledError
		panicked *temporal.PanicError
	)
	switch {
	case errors.As(err, &timeout):
		ae.Type, ae.Message = typeTimeout, fmt.Sprintf("%s timeout", timeout.TimeoutType())
		ae.Cause = fmt.Errorf("temporal: activity %s: %s: %w", name, timeout.Error(), engine.ErrTimeout)
	case errors.As(err, &canceled):
		return activityCanceled(name, fmt.Errorf("temporal: activity %s: %w", name, engine.ErrCanceled))
	case errors.As(err, &app):
		ae.Message, ae.NonRetryable = app.Message(), app.NonRetryable()
		if app.Type() == typePanic {
			ae.Type = typePanic
		}
	case errors.As(err, &panicked):
		ae.Type, ae.Message = typePanic, panicked.Error()
	}
	return ae
}

// activityCanceled is the error of an activity the workflow's cancellation
// stopped.
func activityCanceled(name string, cause error) error {
	return &engine.ActivityError{Activity: name, Type: typeCanceled, Message: "the workflow was canceled", Cause: cause}
}

// workflowFailure turns the error a workflow (started or child) ended with
// into the engine's terms: its cancellation wraps engine.ErrCanceled, its
// timeout context.DeadlineExceeded, its own error keeps its message.
func workflowFailure(err error) error {
	var (
		app      *temporal.ApplicationError
		timeout  *temporal.TimeoutError
		canceled *temporal.CanceledError
		term     *temporal.TerminatedError
	)
	switch {
	case errors.As(err, &canceled):
		return fmt.Errorf("%s: %w", canceled.Error(), engine.ErrCanceled)
	case errors.As(err, &timeout):
		return fmt.Errorf("the workflow ran past its timeout (%s): %w", timeout.TimeoutType(), context.DeadlineExceeded)
	case errors.As(err, &term):
		return fmt.Errorf("the workflow was terminated: %s", term.Error())
	case errors.As(err, &app) && app.Type() == typeTimeout:
		return &workflowError{msg: app.Message(), sentinel: engine.ErrTimeout}
	case errors.As(err, &app):
		return errors.New(app.Message())
	}
	return err
}

// workflowError is a workflow's error read back from Temporal: its message,
// and the engine sentinel it wrapped, for errors.Is.
type workflowError struct {
	msg      string
	sentinel error
}

func (e *workflowError) Error() string { return e.msg }
func (e *workflowError) Unwrap() error { return e.sentinel }
