package bedrock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"

	"github.com/quiver-go/quiver/model"
)

// ErrBrokenStream is wrapped when ConverseStream's events do not fit
// together (a tool input delta for a block that never started, a tool
// input that is not JSON once its block stopped).
var ErrBrokenStream = errors.New("bedrock: broken stream")

// Stream implements model.Client with one ConverseStream request (POST
// /model/{modelId}/converse-stream), the same request Complete sends to
// Converse. Text arrives as it is written; a tool call as its start (a
// model.ChunkToolCallDelta with its id and name), its input deltas, then
// the model.ChunkToolCall when its content block stops; the metadata
// event's usage is a model.ChunkUsage; the final model.ChunkDone carries
// the response Complete would have returned for the same content. A
// request Complete refuses before any HTTP request (deferred tools, no
// model id) is refused by Stream itself; an error status arrives from
// Stream too, as the SDK reads it before the events. An event stream that
// ends before messageStop and metadata — the connection cut, Bedrock
// stopping — fails with model.ErrStreamInterrupted, and so does an
// exception Bedrock sends mid-stream (an *APIError too). Close cancels the
// request.
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	in, err := c.input(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	out, err := c.api.ConverseStream(ctx, streamInput(in))
	if err != nil {
		cancel()
		return nil, wrapSDKError(err)
	}
	es := out.GetStream()
	return &stream{ctx: ctx, cancel: cancel, es: es, events: es.Events(), ignored: req.Cache.Requested()}, nil
}

// streamInput is in as a ConverseStream input: the same fields (the
// guardrail's in its streaming shape).
func streamInput(in *bedrockruntime.ConverseInput) *bedrockruntime.ConverseStreamInput {
	s := &bedrockruntime.ConverseStreamInput{
		ModelId:                           in.ModelId,
		AdditionalModelRequestFields:      in.AdditionalModelRequestFields,
		AdditionalModelResponseFieldPaths: in.AdditionalModelResponseFieldPaths,
		InferenceConfig:                   in.InferenceConfig,
		Messages:                          in.Messages,
		OutputConfig:                      in.OutputConfig,
		PerformanceConfig:                 in.PerformanceConfig,
		PromptVariables:                   in.PromptVariables,
		RequestMetadata:                   in.RequestMetadata,
		ServiceTier:                       in.ServiceTier,
		System:                            in.System,
		ToolConfig:                        in.ToolConfig,
	}
	if g := in.GuardrailConfig; g != nil {
		s.GuardrailConfig = &types.GuardrailStreamConfiguration{GuardrailIdentifier: g.GuardrailIdentifier, GuardrailVersion: g.GuardrailVersion, Trace: g.Trace}
	}
	return s
}

// stream delivers one ConverseStream invocation as model chunks.
type stream struct {
	ctx    context.Context
	cancel context.CancelFunc
	es     *bedrockruntime.ConverseStreamEventStream
	events <-chan types.ConverseStreamOutput
	// ignored are the request's cache checkpoints, which the final
	// response lists.
	ignored []model.CacheCheckpoint

	// mu guards what Recv and Close share; Close cancels first, so a
	// Recv waiting for an event returns and lets it in.
	mu      sync.Mutex
	closed  bool
	done    bool
	msg     message
	pending []model.Chunk
}

// Recv returns the next chunk; after ChunkDone it returns io.EOF.
func (s *stream) Recv() (model.Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.pending) == 0 {
		switch {
		case s.closed:
			return model.Chunk{}, model.ErrStreamClosed
		case s.done:
			return model.Chunk{}, io.EOF
		}
		var ev types.ConverseStreamOutput
		var open bool
		select {
		case ev, open = <-s.events:
		case <-s.ctx.Done():
			return model.Chunk{}, s.fail(fmt.Errorf("bedrock: converse stream: %w", context.Cause(s.ctx)))
		}
		if !open {
			if err := s.ended(); err != nil {
				return model.Chunk{}, s.fail(err)
			}
			break
		}
		chunks, err := s.msg.add(ev)
		if err != nil {
			return model.Chunk{}, s.fail(err)
		}
		s.pending = append(s.pending, chunks...)
	}
	c := s.pending[0]
	s.pending = s.pending[1:]
	return c, nil
}

// fail ends the stream with err: later Recv calls return io.EOF.
func (s *stream) fail(err error) error {
	s.done = true
	s.pending = nil
	return err
}

// ended handles the end of the events: an error of the event stream, or
// an end before messageStop and metadata, is an interruption; a complete
// stream queues ChunkDone.
func (s *stream) ended() error {
	err := s.es.Err()
	var apiErr smithy.APIError
	switch {
	case s.ctx.Err() != nil:
		return fmt.Errorf("bedrock: converse stream: %w", context.Cause(s.ctx))
	case errors.As(err, &apiErr):
		// An exception event: Bedrock gave up mid-answer.
		return fmt.Errorf("bedrock: %w: %w", model.ErrStreamInterrupted, wrapSDKError(err))
	case err != nil:
		return fmt.Errorf("bedrock: converse stream: %w: %w", model.ErrStreamInterrupted, err)
	case !s.msg.stopped || s.msg.usage == nil:
		return fmt.Errorf("bedrock: converse stream: %w: the events ended before %s", model.ErrStreamInterrupted, s.msg.missing())
	}
	s.done = true
	resp, err := s.msg.response()
	if err != nil {
		return err
	}
	resp.IgnoredCheckpoints = s.ignored
	s.pending = append(s.pending, model.Chunk{Kind: model.ChunkDone, Response: resp})
	return nil
}

// Close cancels the request if it is still running and releases the
// connection; it may be called more than once, and while Recv waits.
func (s *stream) Close() error {
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	// The event stream's error is what it read before; a stream closed
	// early has nothing to report.
	_ = s.es.Close()
	return nil
}
