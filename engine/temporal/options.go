package temporal

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// DefaultStartToCloseTimeout bounds one activity attempt when neither the
// runtime (Timing.Plan, Timing.Tools) nor [ActivityDefaults] does:
// Temporal needs a bound on every activity.
const DefaultStartToCloseTimeout = 10 * time.Minute

// Options configure an [Engine].
type Options struct {
	// ActivityDefaults are the engine mechanisms the design does not
	// configure: queue timeouts, heartbeats and retries.
	ActivityDefaults ActivityDefaults
	// Worker are the SDK worker's options (concurrency, identity, …).
	// DeadlockDetectionTimeout defaults to [DefaultDeadlockDetection]
	// instead of the SDK's second: the runtime's workflow code appends
	// to the run log, which may take longer. DefaultHeartbeatThrottleInterval
	// defaults to a second instead of 30: activities learn of a
	// cancellation from heartbeats.
	Worker worker.Options
	// WorkflowTaskTimeout bounds one workflow task of the runs and child
	// runs the engine starts (0: Temporal's 10s): a workflow whose worker
	// died is handed to another worker after it.
	WorkflowTaskTimeout time.Duration
	// DataConverter is the one the client was built with (nil: the SDK's
	// default). The worker and starter use the client's; the engine needs
	// it only to decode the histories [Engine.ReplayHistory] replays.
	DataConverter converter.DataConverter
}

// DefaultDeadlockDetection is the worker's deadlock detection timeout
// unless Options.Worker sets one: a workflow task that runs this long
// without yielding fails. The runtime's workflow code appends its events to
// the run log (bounded at 30s) when it is not replaying.
const DefaultDeadlockDetection = 40 * time.Second

// ActivityDefaults apply to every activity the engine schedules.
type ActivityDefaults struct {
	// StartToCloseTimeout bounds one attempt when the runtime sets no
	// bound (DefaultStartToCloseTimeout when zero).
	StartToCloseTimeout time.Duration
	// ScheduleToStartTimeout bounds how long an activity may wait in the
	// task queue for a worker (0: no bound). Temporal does not retry an
	// activity past it.
	ScheduleToStartTimeout time.Duration
	// HeartbeatTimeout, when set, makes a worker that stopped heartbeating
	// fail the attempt after it (a killed worker is noticed that fast);
	// the engine heartbeats for every activity every third of it.
	HeartbeatTimeout time.Duration
	// RetryPolicy, when set, retries every activity by it, whatever the
	// runtime asked. Nil keeps the runtime's policy (one attempt unless a
	// run policy says otherwise, e.g. RunPolicy.PlanAttempts).
	RetryPolicy *temporal.RetryPolicy
}

// validate reports options that could never work.
func (o Options) validate() error {
	d := o.ActivityDefaults
	var errs []error
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"ActivityDefaults.StartToCloseTimeout", d.StartToCloseTimeout}, {"ActivityDefaults.ScheduleToStartTimeout", d.ScheduleToStartTimeout},
		{"ActivityDefaults.HeartbeatTimeout", d.HeartbeatTimeout}, {"WorkflowTaskTimeout", o.WorkflowTaskTimeout}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s is negative (%s): use 0 for the default", f.name, f.v))
		}
	}
	if p := d.RetryPolicy; p != nil {
		if p.MaximumAttempts < 0 {
			errs = append(errs, fmt.Errorf("ActivityDefaults.RetryPolicy.MaximumAttempts is negative (%d): 0 means unlimited", p.MaximumAttempts))
		}
		if p.BackoffCoefficient != 0 && p.BackoffCoefficient < 1 {
			errs = append(errs, fmt.Errorf("ActivityDefaults.RetryPolicy.BackoffCoefficient %v must be 0 (default 2) or at least 1", p.BackoffCoefficient))
		}
	}
	return errors.Join(errs...)
}

// temporalActivityOptions are the SDK's activity options.
type temporalActivityOptions = workflow.ActivityOptions
