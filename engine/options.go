package engine

import (
	"errors"
	"fmt"
	"time"
)

// Retry defaults for zero RetryPolicy fields, the same on every engine.
const (
	// DefaultInitialInterval is the wait after the first failed attempt.
	DefaultInitialInterval = 100 * time.Millisecond
	// DefaultBackoffCoefficient multiplies the wait after each attempt.
	DefaultBackoffCoefficient = 2.0
	// DefaultMaxIntervalFactor caps the wait at this many times the
	// initial interval.
	DefaultMaxIntervalFactor = 100
)

// WithDefaults returns p with its zero intervals and coefficient set to
// the defaults (MaxAttempts is left as it is: 0 means one attempt).
func (p RetryPolicy) WithDefaults() RetryPolicy {
	if p.InitialInterval <= 0 {
		p.InitialInterval = DefaultInitialInterval
	}
	if p.BackoffCoefficient == 0 {
		p.BackoffCoefficient = DefaultBackoffCoefficient
	}
	if p.MaxInterval <= 0 {
		p.MaxInterval = DefaultMaxIntervalFactor * p.InitialInterval
	}
	return p
}

// Merge returns o with each zero field taken from def: the options an
// ExecuteActivity call gives override the activity definition's defaults
// field by field.
func (o ActivityOptions) Merge(def ActivityOptions) ActivityOptions {
	if o.StartToCloseTimeout == 0 {
		o.StartToCloseTimeout = def.StartToCloseTimeout
	}
	if o.Retry.MaxAttempts == 0 {
		o.Retry.MaxAttempts = def.Retry.MaxAttempts
	}
	if o.Retry.InitialInterval == 0 {
		o.Retry.InitialInterval = def.Retry.InitialInterval
	}
	if o.Retry.BackoffCoefficient == 0 {
		o.Retry.BackoffCoefficient = def.Retry.BackoffCoefficient
	}
	if o.Retry.MaxInterval == 0 {
		o.Retry.MaxInterval = def.Retry.MaxInterval
	}
	return o
}

// Validate rejects options no engine could honour.
func (o ActivityOptions) Validate() error {
	var errs []error
	if o.StartToCloseTimeout < 0 {
		errs = append(errs, fmt.Errorf("negative StartToCloseTimeout %s", o.StartToCloseTimeout))
	}
	p := o.Retry
	if p.MaxAttempts < 0 {
		errs = append(errs, fmt.Errorf("negative Retry.MaxAttempts %d", p.MaxAttempts))
	}
	if p.InitialInterval < 0 {
		errs = append(errs, fmt.Errorf("negative Retry.InitialInterval %s", p.InitialInterval))
	}
	if p.MaxInterval < 0 {
		errs = append(errs, fmt.Errorf("negative Retry.MaxInterval %s", p.MaxInterval))
	}
	if p.BackoffCoefficient != 0 && !(p.BackoffCoefficient >= 1) {
		errs = append(errs, fmt.Errorf("Retry.BackoffCoefficient %v must be 0 (default 2) or at least 1", p.BackoffCoefficient))
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid activity options: %w", errors.Join(errs...))
	}
	return nil
}
