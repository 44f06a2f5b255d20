// Package inmem is the default engine: it runs workflows and activities in
// goroutines of the current process and keeps nothing on disk. It satisfies
// engine.Engine with the semantics a durable engine has, so that code
// written against it moves to a durable engine (engine/temporal) unchanged:
//
//   - Every value that crosses the contract is serialized. Workflow inputs
//     and outputs are JSON (validated and copied), activity and child inputs
//     are marshalled with encoding/json and outputs are unmarshalled into the
//     caller's value, so state that would not survive persistence (channels,
//     funcs, fields tagged `json:"-"`) fails or disappears here too.
//   - An activity's error reaches workflow code as an *engine.ActivityError
//     carrying only the activity name, a type ("error", "timeout",
//     "canceled", "panic"), the message and the non-retryable flag. Timeouts
//     also satisfy errors.Is(err, engine.ErrTimeout) and cancellations
//     errors.Is(err, engine.ErrCanceled).
//   - Activity options given to ExecuteActivity override the definition's
//     defaults field by field where non-zero. Each attempt runs in its own
//     goroutine under StartToCloseTimeout; an attempt past its timeout is
//     abandoned (its context canceled) even if the handler ignores the
//     context. Failed attempts are retried with exponential backoff: the
//     first interval defaults to 100ms, the coefficient to 2 and the cap to
//     100 times the first interval. Errors marked with
//     engine.NewNonRetryableError, cancellations and exhausted attempts end
//     the retries. Panics in handlers are recovered as failures of type
//     "panic" and retried like other errors.
//   - Cancel cancels the workflow's context: pending and later
//     ExecuteActivity, ExecuteChild and Sleep calls return errors wrapping
//     engine.ErrCanceled, activity contexts are canceled and children are
//     canceled with their parent. Wait then returns whatever the workflow
//     function returns (normally the wrapped engine.ErrCanceled).
//   - StartRequest.Timeout bounds the execution: at the deadline the
//     workflow's context is canceled and Wait returns at once with an error
//     wrapping context.DeadlineExceeded, whether or not the workflow
//     function has returned yet.
//   - A panic in workflow code is recovered and Wait returns a *PanicError.
//
// Workflow ids are unique among running executions (ErrAlreadyStarted
// otherwise); an empty id gets a random one, and a child started with an
// empty id gets "<parent id>/<n>". Nothing is replayed: IsReplaying is
// always false, Now reads the engine clock (WithClock) and Sleep, backoff
// and timeouts use the wall clock.
package inmem
