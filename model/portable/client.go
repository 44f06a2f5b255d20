package portable

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
)

// DefaultSearchLimit is how many tools one search returns at most
// (discovery.DefaultSearchLimit).
const DefaultSearchLimit = discovery.DefaultSearchLimit

// DefaultMinRelativeScore is the least score, as a fraction of the best
// hit's, for a scored hit to be returned and discovered
// (discovery.DefaultMinRelativeScore).
const DefaultMinRelativeScore = discovery.DefaultMinRelativeScore

// Client adds portable tool search to an inner client.
type Client struct {
	inner    model.Client
	settings discovery.Settings
	engine   *discovery.Engine
	// err is the options' error: SupportsSearch and every request in
	// portable mode return it.
	err error
}

// Option configures a Client.
type Option func(*Client)

// WithDiscovery sets how searches rank (discovery.Settings: the limit of
// tools per search and the weak-hit cut; the zero value is the defaults).
// Every adapter that searches takes the same value through an option of
// the same name (model/openai, model/anthropic, model/compat).
func WithDiscovery(s discovery.Settings) Option {
	return func(c *Client) { c.settings = s }
}

// Wrap returns inner with portable search. Requests without deferred tools,
// or whose search mode is not model.SearchPortable, go to inner unchanged
// (inner then searches natively or returns model.ErrToolSearchUnsupported).
// Options out of range are reported by SupportsSearch — so the runtime
// refuses the agent before any request — and by every request in portable
// mode.
func Wrap(inner model.Client, opts ...Option) *Client {
	c := &Client{inner: inner}
	for _, o := range opts {
		o(c)
	}
	if c.engine, c.err = discovery.New(c.settings); c.err != nil {
		c.err = fmt.Errorf("portable: %w", c.err)
	}
	return c
}

// SupportsSearch implements model.SearchCapable: portable mode is answered
// here (nil unless the options are out of range); native mode goes to the
// inner client, which must search natively.
func (c *Client) SupportsSearch(s model.SearchSettings) error {
	if s.Mode == model.SearchPortable {
		return c.err
	}
	if err := model.CheckSearch(c.inner, s); err != nil {
		return fmt.Errorf("portable: native search goes to the wrapped client; set Search.Mode to model.SearchPortable to search with the wrapper: %w", err)
	}
	return nil
}

// Handles reports whether the client answers req's searches itself.
func Handles(req *model.Request) bool {
	return req != nil && req.Search.Mode == model.SearchPortable && model.HasDeferred(req.Tools)
}

// Complete implements model.Client.
func (c *Client) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req == nil {
		return nil, errNilRequest
	}
	if !Handles(req) {
		return c.inner.Complete(ctx, req)
	}
	if c.err != nil {
		return nil, c.err
	}
	s, err := c.newSession(req)
	if err != nil {
		return nil, err
	}
	resp, err := s.run(ctx, c.inner.Complete, nil)
	if err != nil {
		return nil, err
	}
	model.RecordForcedTool(req, resp)
	return resp, nil
}

// maxInvalidCallRounds bounds the model rounds of one invocation that
// follow a round whose only calls the wrapper answered were call-tool calls
// it could not read: the model gets that many tries to fix its call. Rounds
// after a search are bounded by the discovery turn (Turn.NextRound), so an
// invocation has at most budget + 2 + maxInvalidCallRounds rounds.
const maxInvalidCallRounds = 3

// session is one invocation: the active tools, the discovery turn and the
// messages produced so far.
type session struct {
	c    *Client
	req  *model.Request
	name string
	turn *discovery.Turn
	// active are the tools callable by their own name: the inline tools,
	// then (outside call-tool mode) the deferred ones loaded so far.
	active []model.ToolDefinition
	// callTool is the call-tool mode (model.SearchSettings.CallTool):
	// fixed is then the tools array of every request of the invocation.
	callTool bool
	fixed    []model.ToolDefinition
	// invalidRounds counts the rounds that followed a round answered only
	// for unreadable call-tool calls.
	invalidRounds int
	msgs          []model.Message
	out           model.Response
}

func (c *Client) newSession(req *model.Request) (*session, error) {
	s := &session{
		c:        c,
		req:      req,
		name:     req.Search.SearchToolName(),
		callTool: req.Search.CallTool,
		msgs:     model.CloneMessages(req.Messages),
	}
	for _, d := range req.Tools {
		switch {
		case d.Name == s.name:
			return nil, fmt.Errorf("portable: tool %q has the search tool's name: rename it or set another SearchSettings.ToolName", d.Name)
		case s.callTool && d.Name == model.CallToolName:
			return nil, fmt.Errorf("portable: tool %q has the name of the function found tools are called through (SearchSettings.CallTool): rename the tool or turn CallTool off", d.Name)
		case !d.Deferred:
			s.active = append(s.active, d.Clone())
		}
	}
	turn, err := c.engine.Begin(req, s.name)
	if err != nil {
		return nil, fmt.Errorf("portable: %w", err)
	}
	s.turn = turn
	if s.callTool {
		s.beginCallTool()
		return s, nil
	}
	// Discovered tools, and a forced one, are callable at once.
	for _, d := range turn.LoadedTools() {
		s.activate(d)
	}
	return s, nil
}

// beginCallTool prepares an invocation in call-tool mode: one tools array
// for every round — the inline tools in the request's order, the search
// tool, the call-tool function — whatever the searches find. Discovered
// tools stay loaded in the turn (the runtime admits their calls; a search
// matching one answers it again, as its definition lives only in answers)
// but are never listed. The one exception
// is a deferred tool the request forces (model.ToolChoiceTool): a provider
// can only force a listed tool, so it is listed last, for that request.
// The runtime never forces one.
func (s *session) beginCallTool() {
	s.fixed = append(slices.Clone(s.active), s.searchTool(), discovery.CallToolDefinition(model.CallToolName, s.name))
	if tc := s.req.ToolChoice; tc.Mode == model.ToolChoiceTool && s.turn.Loaded(tc.Name) {
		i := slices.IndexFunc(s.req.Tools, func(d model.ToolDefinition) bool { return d.Name == tc.Name })
		d := s.req.Tools[i].Clone()
		d.Deferred, d.Search = false, nil
		s.fixed = append(s.fixed, d)
	}
	// The runtime names a tool's result after the tool that ran (its
	// admission, events and history summaries read that name), so the
	// result of a call the model made through call_tool is named after the
	// found tool, while the call, kept as the model made it, is named
	// call_tool. Providers pair a result with its call by call id (OpenAI,
	// Anthropic, Bedrock), but the model should read a result named as the
	// call it made, and an API that pairs by name would refuse the pair: so
	// what this wrapper sends to the inner client names such results
	// call_tool. The transcript keeps the runtime's name.
	viaCallTool := map[string]bool{}
	for _, m := range s.msgs {
		for _, tc := range m.ToolCalls() {
			if tc.Name == model.CallToolName {
				viaCallTool[tc.ID] = true
			}
		}
	}
	for _, m := range s.msgs {
		for _, p := range m.Parts {
			if p.Kind == model.PartToolResult && p.ToolResult != nil && viaCallTool[p.ToolResult.CallID] {
				p.ToolResult.Name = model.CallToolName
			}
		}
	}
}

// activate makes a deferred tool callable from the next request on.
func (s *session) activate(d model.ToolDefinition) {
	if slices.ContainsFunc(s.active, func(a model.ToolDefinition) bool { return a.Name == d.Name }) {
		return
	}
	d = d.Clone()
	d.Deferred = false
	d.Search = nil
	s.active = append(s.active, d)
}

// tools returns the tools array of the next request.
func (s *session) tools() []model.ToolDefinition {
	if s.callTool {
		// The same array every round, the search tool included once the
		// budget is spent: a search past it is answered with the
		// budget-exhausted answer, and the turn bounds the rounds.
		return slices.Clone(s.fixed)
	}
	out := slices.Clone(s.active)
	if !s.turn.Exhausted() {
		// Once the budget is spent the search tool leaves the turn's
		// requests, so a model cannot keep searching.
		out = append(out, s.searchTool())
	}
	return out
}

// round runs one provider request of an invocation: the inner client's
// Complete, or a streamed request whose chunks pass through (Stream).
type round func(ctx context.Context, req *model.Request) (*model.Response, error)

// run plays the invocation's rounds with do, answering the searches
// between them; onSearch (nil: none) hears each round of searches once it
// is answered, before the next request.
func (s *session) run(ctx context.Context, do round, onSearch func([]model.SearchRound) error) (*model.Response, error) {
	onlyInvalid := false
	for {
		if onlyInvalid {
			// The previous round answered only unreadable call-tool calls:
			// no search ran, so the turn does not count this round.
			s.invalidRounds++
			if s.invalidRounds > maxInvalidCallRounds {
				return nil, fmt.Errorf("portable: %w: the model kept sending %s calls whose arguments could not be read (%d rounds), instead of answering or calling a tool", discovery.ErrSearchLoop, model.CallToolName, maxInvalidCallRounds)
			}
		} else if err := s.turn.NextRound(); err != nil {
			return nil, err
		}
		inner := *s.req
		inner.Messages = s.msgs
		inner.Tools = s.tools()
		inner.Search = model.SearchSettings{}
		inner.Discovery = nil
		if s.req.MaxTokens > 0 {
			// Search rounds share the invocation's output budget.
			inner.MaxTokens = s.req.MaxTokens - s.out.Usage.OutputTokens
			if inner.MaxTokens <= 0 {
				s.out.StopReason = model.StopMaxTokens
				return &s.out, nil
			}
		}
		resp, err := do(ctx, &inner)
		if err != nil {
			return nil, err
		}
		s.out.Usage = s.out.Usage.Add(resp.Usage)
		// Checkpoints the inner client ignored in any round, each once.
		s.out.IgnoredCheckpoints = model.AddCheckpoints(s.out.IgnoredCheckpoints, resp.IgnoredCheckpoints...)
		s.out.Messages = append(s.out.Messages, resp.Messages...)
		s.msgs = append(s.msgs, model.CloneMessages(resp.Messages)...)
		var own []ownCall
		var calls []model.ToolCall
		searched := false
		for _, tc := range resp.ToolCalls {
			switch {
			case tc.Name == s.name:
				own = append(own, ownCall{call: tc})
				searched = true
			case s.callTool && tc.Name == model.CallToolName:
				call, err := s.unwrap(tc)
				if err != nil {
					own = append(own, ownCall{call: tc, err: err})
				} else {
					calls = append(calls, call)
				}
			default:
				calls = append(calls, tc)
			}
		}
		if len(own) == 0 {
			s.out.ToolCalls = calls
			s.out.StopReason = resp.StopReason
			return &s.out, nil
		}
		results, rounds := s.answer(own)
		if onSearch != nil {
			if err := onSearch(rounds); err != nil {
				return nil, err
			}
		}
		s.out.Messages = append(s.out.Messages, results)
		s.msgs = append(s.msgs, results.Clone())
		if len(calls) > 0 {
			// Ordinary calls made alongside a search (or an unreadable
			// call-tool call) go to the planner now; the runtime answers
			// them after the wrapper's answers.
			s.out.ToolCalls = calls
			s.out.StopReason = resp.StopReason
			return &s.out, nil
		}
		onlyInvalid = !searched
	}
}

// SearchInstruction implements model.SearchInstructor: a model on portable
// search calls the search tool; otherwise requests reach the inner client,
// whose own search the refusal names.
func (c *Client) SearchInstruction(s model.SearchSettings) string {
	if s.Mode == model.SearchPortable {
		return s.PortableInstruction()
	}
	if si, ok := c.inner.(model.SearchInstructor); ok {
		return si.SearchInstruction(s)
	}
	return ""
}

// errNilRequest is returned for a nil request instead of a panic.
var errNilRequest = errors.New("portable: nil request")

// compile-time checks
var (
	_ model.Client           = (*Client)(nil)
	_ model.SearchCapable    = (*Client)(nil)
	_ model.SearchInstructor = (*Client)(nil)
)
