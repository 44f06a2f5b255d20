package catalogfile

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// MaxProblems is how many problems of separate tools one read reports
// before it stops: enough to fix a catalog in one pass, few enough to read.
const MaxProblems = 20

// Problems is the error of a catalog with more than one problem: each one
// positioned, in file order. A catalog with a single problem fails with
// that *Error alone. [errors.As] finds the first *Error; [errors.Is] matches
// a sentinel any of them wraps.
type Problems []*Error

// Error implements error: one problem a line, then how many were left
// unread when the read stopped at [MaxProblems].
func (p Problems) Error() string {
	lines := make([]string, 0, len(p)+1)
	for _, e := range p {
		lines = append(lines, e.Error())
	}
	if len(p) >= MaxProblems {
		lines = append(lines, "catalogfile: stopped after "+strconv.Itoa(MaxProblems)+" problems; fix these and read the catalog again")
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, for [errors.Is] and [errors.As].
func (p Problems) Unwrap() []error {
	out := make([]error, len(p))
	for i, e := range p {
		out[i] = e
	}
	return out
}

// problem records a problem of one tool and lets the read go on to the
// next tool, until MaxProblems; errors that are not a tool's (I/O, a
// syntax error) stop the read at once.
func (d *docReader) problem(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	d.problems = append(d.problems, e)
	if len(d.problems) >= MaxProblems {
		return errStop
	}
	return nil
}

// errStop ends a read that has recorded MaxProblems problems.
var errStop = errors.New("catalogfile: too many problems")

// outcome is the error of a read: its problems in file order, with the
// error that stopped it (if any) last.
func (d *docReader) outcome(stop error) error {
	all := slices.Clone(d.problems)
	slices.SortStableFunc(all, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	if stop != nil && !errors.Is(stop, errStop) {
		var e *Error
		if !errors.As(stop, &e) {
			if len(all) == 0 {
				return stop
			}
			e = &Error{Source: d.source, Msg: stop.Error(), Err: stop}
		}
		all = append(all, e)
	}
	switch len(all) {
	case 0:
		return nil
	case 1:
		return all[0]
	}
	return Problems(all)
}
