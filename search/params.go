package search

import (
	"errors"
	"fmt"
	"math"
)

// DefaultLimit is the number of hits Search returns when limit is not positive.
const DefaultLimit = 10

// Params are the BM25F parameters of an [Index].
type Params struct {
	// K1 controls term-frequency saturation (> 0).
	K1 float64
	// B is the per-field length normalization, each in [0, 1].
	B [NumFields]float64
	// Weights scale each field's term frequencies (>= 0, at least one > 0).
	Weights [NumFields]float64
}

// DefaultParams returns the parameters tuned on the MetaTool retrieval set
// (see docs/benchmarks.md for the figures and the command that tunes them).
func DefaultParams() Params {
	return Params{
		K1: 1.5,
		B: [NumFields]float64{
			FieldName:            0.75,
			FieldTitle:           0.4,
			FieldDescription:     0.4,
			FieldKeywords:        0.4,
			FieldArgNames:        0.4,
			FieldArgDescriptions: 0.4,
		},
		Weights: [NumFields]float64{
			FieldName:            2.5,
			FieldTitle:           2,
			FieldDescription:     1,
			FieldKeywords:        1.5,
			FieldArgNames:        0.5,
			FieldArgDescriptions: 0.3,
		},
	}
}

// Validate reports every parameter out of range.
func (p Params) Validate() error {
	var errs []error
	if !(p.K1 > 0) || math.IsInf(p.K1, 0) {
		errs = append(errs, fmt.Errorf("k1 is %v, want a finite number > 0", p.K1))
	}
	anyWeight := false
	for f := range NumFields {
		if !(p.B[f] >= 0 && p.B[f] <= 1) {
			errs = append(errs, fmt.Errorf("b[%s] is %v, want 0..1", Field(f), p.B[f]))
		}
		if !(p.Weights[f] >= 0) || math.IsInf(p.Weights[f], 0) {
			errs = append(errs, fmt.Errorf("weight[%s] is %v, want a finite number >= 0", Field(f), p.Weights[f]))
		}
		if p.Weights[f] > 0 {
			anyWeight = true
		}
	}
	if !anyWeight {
		errs = append(errs, errors.New("every field weight is 0: give at least one field a positive weight"))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("search: invalid parameters: %w", errors.Join(errs...))
}
