package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/internal/boundedinput"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools"
)

// Bounds of quiver registry call.
const (
	// defaultCallTimeout is how long the registry waits for an outcome
	// unless --timeout says otherwise; maxCallTimeout the registry's
	// limit.
	defaultCallTimeout = 30 * time.Second
	maxCallTimeout     = 10 * time.Minute
	// callGrace is how much longer than --timeout the command waits for
	// the registry's answer.
	callGrace = 30 * time.Second
	// maxPayloadFile bounds a payload read from a file or stdin.
	maxPayloadFile = 64 << 20
	// maxCallID is the registry's longest call id.
	maxCallID = 256
)

// callOptions are the flags of quiver registry call.
type callOptions struct {
	reg     registryFlags
	payload string
	callID  string
	timeout time.Duration
	json    bool
}

// newRegistryCallCommand returns quiver registry call.
func newRegistryCallCommand() *cobra.Command {
	var opts callOptions
	cmd := &cobra.Command{
		Use:   "call TOOLSET.TOOL --payload JSON|@FILE [--call-id ID] [--timeout D] [--json]",
		Short: "Call a registered tool through the registry",
		Long: `Resolve the tool's toolset and call the tool with its token: the registry
validates the payload against the tool's schema, hands the call to one
healthy provider and returns its outcome: the result, as JSON with its
numbers digit for digit (object keys come out sorted).

--payload takes the payload JSON itself, @FILE to read it from a file, or
@- to read stdin. Every call has an id that makes it idempotent: a retry
with the same id and payload returns the recorded outcome and runs nothing
again. Without --call-id the command generates one and prints it; after a
timeout, an unavailable registry or outcome_unknown, call again with
--call-id ID to read the outcome. --timeout is how long the registry waits
for the outcome (at most 10m).

A tool that fails (tool_error) exits 1 with its message; so does a call the
registry refuses, printed with the error's name: validation_error (the
payload does not match the tool's schema), unknown_toolset, unknown_tool,
call_not_admitted, outcome_unknown, overloaded…`,
		Example: `  # with quiver serve running
  quiver registry call workspace.listTables --payload '{"limit": 5}'
  quiver registry call workspace.countRows --payload '{"table": "sales.orders", "groupBy": "status"}' --call-id count-orders-1 --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return usagef("missing tool: quiver registry call TOOLSET.TOOL --payload JSON (quiver registry search finds tools)")
			case len(args) > 1:
				return usagef("one tool at a time: quiver registry call TOOLSET.TOOL --payload JSON, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseToolIdent(args[0])
			if err != nil {
				return err
			}
			if err := opts.check(cmd); err != nil {
				return err
			}
			payload, err := readPayload(opts.payload, cmd.InOrStdin())
			if err != nil {
				return err
			}
			return runCall(cmd.Context(), cmd.OutOrStdout(), id, payload, opts)
		},
	}
	opts.reg.addFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&opts.payload, "payload", "", "the payload: `JSON`, @FILE or @- for stdin")
	f.StringVar(&opts.callID, "call-id", "", "the call's `ID`, to retry a call; generated when omitted")
	f.DurationVar(&opts.timeout, "timeout", defaultCallTimeout, "how long the registry waits for the outcome, at most 10m")
	f.BoolVar(&opts.json, "json", false, `print {"call_id":…,"outcome":"ok","result":…} or {"call_id":…,"outcome":"tool_error","error":…}`)
	return cmd
}

// check validates the flags.
func (o *callOptions) check(cmd *cobra.Command) error {
	switch {
	case !cmd.Flags().Changed("payload"):
		return usagef(`missing --payload: give the payload JSON, e.g. --payload '{}', or @FILE`)
	case cmd.Flags().Changed("call-id") && strings.TrimSpace(o.callID) == "":
		return usagef(`--call-id "": give an id, or leave --call-id out to have one generated`)
	case len(o.callID) > maxCallID:
		return usagef("--call-id: %d bytes, want at most %d", len(o.callID), maxCallID)
	case o.timeout < time.Millisecond || o.timeout > maxCallTimeout:
		return usagef("--timeout %s: want 1ms to %s", o.timeout, maxCallTimeout)
	}
	return nil
}

// parseToolIdent reads TOOLSET.TOOL: the toolset may hold dots, the tool
// may not, so it splits at the last dot.
func parseToolIdent(s string) (tools.Ident, error) {
	id, err := tools.ParseIdent(s)
	if err != nil {
		if ie, ok := errors.AsType[*tools.IdentError](err); ok {
			return "", usagef("%q is not TOOLSET.TOOL: %s", s, strings.Join(ie.Problems, "; "))
		}
		return "", usagef("%q is not TOOLSET.TOOL: %v", s, err)
	}
	return id, nil
}

// readPayload returns the payload --payload gives: inline JSON (malformed
// JSON is a usage error), @FILE or @- for stdin (whose content must be
// JSON).
func readPayload(arg string, stdin io.Reader) (json.RawMessage, error) {
	path, fromFile := strings.CutPrefix(arg, "@")
	if !fromFile {
		if err := checkJSON(arg); err != nil {
			return nil, usagef("--payload: not JSON: %v", err)
		}
		return json.RawMessage(arg), nil
	}
	var (
		r      io.Reader
		source = path
	)
	switch path {
	case "":
		return nil, usagef("--payload @: name a file after @, or @- for stdin")
	case "-":
		lr, err := boundedinput.Limit(stdin, stdinSource, maxPayloadFile)
		if err != nil {
			return nil, fmt.Errorf("payload: %w", err)
		}
		r, source = lr, stdinSource
	default:
		f, err := boundedinput.Open(path, maxPayloadFile)
		if err != nil {
			return nil, fmt.Errorf("payload: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	if err := checkJSON(string(data)); err != nil {
		return nil, fmt.Errorf("payload %s: not JSON: %v", source, err)
	}
	return json.RawMessage(bytes.TrimSpace(data)), nil
}

// checkJSON reports why s is not one JSON value.
func checkJSON(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("it is empty")
	}
	var v json.RawMessage
	return json.Unmarshal([]byte(s), &v)
}

// jsonOutcome is the --json output of quiver registry call: the API's
// call outcome.
type jsonOutcome struct {
	CallID  string `json:"call_id"`
	Outcome string `json:"outcome"`
	Result  any    `json:"result,omitempty"`
	Error   string `json:"error,omitempty"`
}

func runCall(ctx context.Context, w io.Writer, id tools.Ident, payload json.RawMessage, opts callOptions) error {
	callID, generated := opts.callID, false
	if callID == "" {
		callID, generated = "quiver-"+strings.ToLower(rand.Text()), true
	}
	ctx, cancel := context.WithTimeout(ctx, opts.timeout+callGrace)
	defer cancel()
	toolset := id.Toolset()
	if err := opts.reg.checkServed(ctx, toolset); err != nil {
		return err
	}
	var out *gen.CallOutcome
	// A new revision may replace the toolset's registration between the
	// resolution and the call (admission_conflict, with nothing
	// recorded): resolve again, once.
	for attempt := 0; ; attempt++ {
		res, err := opts.reg.resolve(ctx, toolset, "")
		if err != nil {
			return err
		}
		out, err = opts.reg.client.CallResolvedTool(ctx, &gen.CallResolvedToolPayload{
			Toolset: toolset, Tool: id.Tool(), Token: res.Toolset.Token, CallID: callID,
			Payload: payload, TimeoutMs: int(opts.timeout / time.Millisecond),
		})
		if err == nil {
			break
		}
		if registry.IsError(err, registry.ErrAdmissionConflict) && attempt == 0 {
			continue
		}
		return callFailure(opts.reg.fail(err), err, callID)
	}
	var toolErr error
	if out.Outcome != "ok" {
		toolErr = fmt.Errorf("%s failed (%s): %s", id, out.Outcome, deref(out.Error))
	}
	if opts.json {
		if err := writeJSON(w, jsonOutcome{CallID: out.CallID, Outcome: out.Outcome, Result: out.Result, Error: deref(out.Error)}); err != nil {
			return err
		}
		return toolErr
	}
	fmt.Fprintf(w, "tool     %s\n", id)
	if generated {
		fmt.Fprintf(w, "call id  %s (generated: --call-id %s reads this outcome again)\n", out.CallID, out.CallID)
	} else {
		fmt.Fprintf(w, "call id  %s\n", out.CallID)
	}
	fmt.Fprintf(w, "outcome  %s\n", out.Outcome)
	if toolErr != nil {
		return toolErr
	}
	fmt.Fprintln(w)
	return writeJSON(w, out.Result)
}

// checkServed fails at once when the registry lists toolset with no
// healthy provider: the registry would hold the call until its deadline
// and answer call_not_admitted. A toolset it does not list is left to the
// resolution (unknown_toolset).
func (f *registryFlags) checkServed(ctx context.Context, toolset string) error {
	res, err := f.client.ListToolsets(ctx, &gen.ListToolsetsPayload{})
	if err != nil {
		return f.fail(err)
	}
	for _, ts := range res.Toolsets {
		if ts.Name == toolset && ts.Providers == 0 {
			return fmt.Errorf("toolset %s has no provider serving it at %s, so no call to it can run: start its provider (quiver serve publishes workspace), then call again; quiver registry ls shows each toolset's providers", toolset, f.url)
		}
	}
	return nil
}

// callFailure adds to a failed call's message how to retry it, when a
// retry may succeed or read an outcome: the registry was unavailable or
// overloaded, the outcome is unknown, or the request got no answer.
func callFailure(msg, err error, callID string) error {
	switch registry.ErrorName(err) {
	case "", registry.ErrUnavailable, registry.ErrOverloaded, registry.ErrOutcomeUnknown:
		return errors.Join(msg, fmt.Errorf("call id %s: retry with --call-id %s to read its outcome without running it twice", callID, callID))
	}
	return msg
}
