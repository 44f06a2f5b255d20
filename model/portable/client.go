package portable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// ErrSearchLoop is returned when a model keeps searching after its budget
// is spent, instead of answering or calling a tool.
var ErrSearchLoop = errors.New("portable: the model kept searching")

// DefaultResultLimit is how many tools one search returns.
const DefaultResultLimit = 5

// DefaultMinRelativeScore is the least score, as a fraction of the best
// hit's, for a scored hit to be returned and discovered.
const DefaultMinRelativeScore = 0.5

// Client adds portable tool search to an inner client.
type Client struct {
	inner       model.Client
	limit       int
	minRelative float64
	indexes     indexCache
}

// Option configures a Client.
type Option func(*Client)

// WithResultLimit sets how many tools one search returns (n > 0).
func WithResultLimit(n int) Option {
	return func(c *Client) {
		if n > 0 {
			c.limit = n
		}
	}
}

// WithMinRelativeScore sets the least score, as a fraction (0..1) of the
// best hit's, for a scored hit to be returned; 0 returns every hit up to
// the limit.
func WithMinRelativeScore(f float64) Option {
	return func(c *Client) {
		if f >= 0 && f <= 1 {
			c.minRelative = f
		}
	}
}

// Wrap returns inner with portable search. Requests without deferred tools,
// or whose search mode is not model.SearchPortable, go to inner unchanged
// (inner then searches natively or returns model.ErrToolSearchUnsupported).
func Wrap(inner model.Client, opts ...Option) *Client {
	c := &Client{inner: inner, limit: DefaultResultLimit, minRelative: DefaultMinRelativeScore}
	for _, o := range opts {
		o(c)
	}
	return c
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
	s, err := c.newSession(req)
	if err != nil {
		return nil, err
	}
	resp, err := s.run(ctx)
	if err != nil {
		return nil, err
	}
	model.RecordForcedTool(req, resp)
	return resp, nil
}

// Stream implements model.Client: it completes the whole invocation (search
// rounds included), then delivers it as chunks.
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	if req == nil {
		return nil, errNilRequest
	}
	if !Handles(req) {
		return c.inner.Stream(ctx, req)
	}
	resp, err := c.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return model.ResponseStream(ctx, resp), nil
}

// session is one invocation: the active tools, the budget and the
// messages produced so far.
type session struct {
	c      *Client
	req    *model.Request
	name   string
	budget int
	used   int
	// exhausted is set once a search was refused for want of budget in
	// this turn.
	exhausted bool
	deferred  map[tools.Ident]model.ToolDefinition
	active    []model.ToolDefinition
	index     searcher
	msgs      []model.Message
	out       model.Response
}

func (c *Client) newSession(req *model.Request) (*session, error) {
	s := &session{
		c:         c,
		req:       req,
		name:      req.Search.SearchToolName(),
		budget:    req.Search.SearchCap(),
		used:      model.SearchesThisTurn(req.Messages),
		exhausted: model.SearchExhaustedThisTurn(req.Messages),
		deferred:  map[tools.Ident]model.ToolDefinition{},
		msgs:      model.CloneMessages(req.Messages),
	}
	var docs []model.ToolDefinition
	for _, d := range req.Tools {
		switch {
		case d.Name == s.name:
			return nil, fmt.Errorf("portable: tool %q has the search tool's name: rename it or set another SearchSettings.ToolName", d.Name)
		case !d.Deferred:
			s.active = append(s.active, d.Clone())
		case d.Search == nil:
			return nil, fmt.Errorf("portable: deferred tool %q has no search document: give it one or advertise it inline", d.Name)
		case d.Ident == "":
			return nil, fmt.Errorf("portable: deferred tool %q has no ident to record its discovery with", d.Name)
		default:
			s.deferred[d.Ident] = d
			docs = append(docs, d)
		}
	}
	index, err := c.indexes.get(docs)
	if err != nil {
		return nil, err
	}
	s.index = index
	for _, id := range model.DiscoveredTools(req.Messages) {
		s.activate(id)
	}
	if req.ToolChoice.Mode == model.ToolChoiceTool {
		// A forced tool stays eager even when deferred.
		for id, d := range s.deferred {
			if d.Name == req.ToolChoice.Name {
				s.activate(id)
			}
		}
	}
	return s, nil
}

// activate makes a deferred tool callable from the next request on.
func (s *session) activate(id tools.Ident) bool {
	d, ok := s.deferred[id]
	if !ok || slices.ContainsFunc(s.active, func(a model.ToolDefinition) bool { return a.Ident == id }) {
		return false
	}
	d = d.Clone()
	d.Deferred = false
	d.Search = nil
	s.active = append(s.active, d)
	return true
}

// maxExtraRounds bounds the search rounds of one invocation beyond the
// budget, so a model that keeps searching after exhaustion ends in an error
// instead of a loop.
const maxExtraRounds = 2

func (s *session) run(ctx context.Context) (*model.Response, error) {
	for round := 0; ; round++ {
		if round > s.budget+maxExtraRounds {
			return nil, fmt.Errorf("%w: it kept calling %s after its search budget of %d was spent", ErrSearchLoop, s.name, s.budget)
		}
		inner := *s.req
		inner.Messages = s.msgs
		inner.Tools = slices.Clone(s.active)
		if !s.exhausted {
			// Once the budget is spent the search tool leaves the turn's
			// requests, so a model cannot keep searching.
			inner.Tools = append(inner.Tools, s.searchTool())
		}
		inner.Search = model.SearchSettings{}
		if s.req.MaxTokens > 0 {
			// Search rounds share the invocation's output budget.
			inner.MaxTokens = s.req.MaxTokens - s.out.Usage.OutputTokens
			if inner.MaxTokens <= 0 {
				s.out.StopReason = model.StopMaxTokens
				return &s.out, nil
			}
		}
		resp, err := s.c.inner.Complete(ctx, &inner)
		if err != nil {
			return nil, err
		}
		s.out.Usage = s.out.Usage.Add(resp.Usage)
		s.out.Messages = append(s.out.Messages, resp.Messages...)
		s.msgs = append(s.msgs, model.CloneMessages(resp.Messages)...)
		var searches, calls []model.ToolCall
		for _, tc := range resp.ToolCalls {
			if tc.Name == s.name {
				searches = append(searches, tc)
			} else {
				calls = append(calls, tc)
			}
		}
		if len(searches) == 0 {
			s.out.ToolCalls = calls
			s.out.StopReason = resp.StopReason
			return &s.out, nil
		}
		results := s.answer(searches)
		s.out.Messages = append(s.out.Messages, results)
		s.msgs = append(s.msgs, results.Clone())
		if len(calls) > 0 {
			// Ordinary calls made alongside a search go to the planner now;
			// the runtime answers them after the search results.
			s.out.ToolCalls = calls
			s.out.StopReason = resp.StopReason
			return &s.out, nil
		}
	}
}

// errNilRequest is returned for a nil request instead of a panic.
var errNilRequest = errors.New("portable: nil request")

// compile-time check
var _ model.Client = (*Client)(nil)

// encode writes v as JSON without escaping <, > and & (a model reads it).
// v is built here from strings and ints, so encoding cannot fail.
func encode(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
