package tools

import "context"

// Progress is what an executor reports of a call while it runs: how far it
// is (Progress of Total, when Total is known) and what it is doing.
type Progress struct {
	Progress float64 `json:"progress"`
	// Total is the amount Progress counts towards; 0 when unknown.
	Total float64 `json:"total,omitempty"`
	// Message says what the call is doing, for a person to read.
	Message string `json:"message,omitempty"`
}

// progressKey carries a call's progress reporter in its context.
type progressKey struct{}

// WithProgressReporter returns ctx carrying report, which receives what
// [ReportProgress] is given with the returned context. The runtime and the
// MCP server set one for each call they run; report must not block.
func WithProgressReporter(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ReportProgress reports p for the call ctx belongs to. Without a reporter
// (nobody follows the call) it does nothing, so executors may call it
// freely; the caller that set the reporter bounds what it keeps.
func ReportProgress(ctx context.Context, p Progress) {
	if report, ok := ctx.Value(progressKey{}).(func(Progress)); ok && report != nil {
		report(p)
	}
}

// HasProgressReporter reports whether ctx carries a progress reporter: an
// executor that forwards progress from elsewhere (an MCP server) asks for
// it only when someone follows.
func HasProgressReporter(ctx context.Context) bool {
	report, ok := ctx.Value(progressKey{}).(func(Progress))
	return ok && report != nil
}
