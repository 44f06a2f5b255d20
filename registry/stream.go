package registry

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	genclient "github.com/quiver-go/quiver/registry/gen/http/registry/client"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// CallStream is a provider's stream of call frames.
type CallStream interface {
	// Recv returns the next frame; [io.EOF] when the registry ended the
	// stream.
	Recv(ctx context.Context) (*gen.CallFrame, error)
	// Close ends the stream.
	Close() error
}

// Calls opens a lease's call stream. It replaces the generated client's
// method of the same name: Goa v3.25.3's generated SSE client neither
// satisfies its own stream interface nor decodes an error response, so
// this one builds the request with the generated code, decodes errors
// (lease_expired, unauthorized…) with the generated decoder and reads
// frames with the generated stream reader.
func (c *Client) Calls(ctx context.Context, p *gen.CallsPayload) (CallStream, error) {
	req, err := c.transport.BuildCallsRequest(ctx, p)
	if err != nil {
		return nil, err
	}
	if err := genclient.EncodeCallsRequest(nil)(req, p); err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.stream.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		_, err := genclient.DecodeCallsResponse(numberDecoder, false)(resp)
		if err == nil {
			err = errors.New("registry: call stream refused with status " + resp.Status)
		}
		return nil, err
	}
	return &callStream{body: resp.Body, r: bufio.NewReaderSize(resp.Body, 64<<10)}, nil
}

// maxFrameBytes bounds one frame: a payload under the registry's body
// limit, with room for the frame's other fields.
const maxFrameBytes = 8 << 20

// callStream reads server-sent events. It decodes each event's data as the
// generated response body (the generated reader decodes it into the
// service type, whose fields have no JSON names, and loses every field).
type callStream struct {
	body io.ReadCloser
	r    *bufio.Reader
}

func (s *callStream) Recv(ctx context.Context) (*gen.CallFrame, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var data bytes.Buffer
	var event string
	for {
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		switch {
		case len(line) == 0:
			if data.Len() == 0 && event == "" {
				continue
			}
			var body genclient.CallsResponseBody
			dec := numberDecoder(&http.Response{Body: io.NopCloser(&data)})
			if err := dec.Decode(&body); err != nil {
				return nil, fmt.Errorf("registry: call frame: %w", err)
			}
			f := genclient.NewCallsCallFrameOK(&body)
			if event != "" {
				f.Type = event
			}
			return f, nil
		case bytes.HasPrefix(line, []byte("data:")):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(bytes.TrimPrefix(line[5:], []byte(" ")))
		case bytes.HasPrefix(line, []byte("event:")):
			event = string(bytes.TrimSpace(line[6:]))
		}
		if data.Len() > maxFrameBytes {
			return nil, fmt.Errorf("registry: call frame over %d bytes", maxFrameBytes)
		}
	}
}

// readLine reads one line without its end, however long (up to the frame
// bound).
func (s *callStream) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, more, err := s.r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if !more {
			return line, nil
		}
		if len(line) > maxFrameBytes {
			return nil, fmt.Errorf("registry: call frame over %d bytes", maxFrameBytes)
		}
	}
}

func (s *callStream) Close() error { return s.body.Close() }
