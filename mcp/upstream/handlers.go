package upstream

// Sampling and roots are deprecated from protocol version 2026-07-28 on
// (SEP-2577), but live in the version this client speaks
// ([ProtocolVersion]): the client answers them with Handlers or refuses
// them.
//
//lint:file-ignore SA1019 sampling and roots are answered or refused on the protocol version the client speaks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The methods a server may send its client that Handlers answer.
const (
	methodSampling    = "sampling/createMessage"
	methodElicitation = "elicitation/create"
	methodRoots       = "roots/list"
)

// capabilities advertises exactly the requests h answers.
func (h Handlers) capabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{}
	if h.Roots != nil {
		caps.RootsV2 = &mcp.RootCapabilities{}
	}
	if h.Sampling != nil {
		caps.Sampling = &mcp.SamplingCapabilities{}
	}
	if h.Elicitation != nil {
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
	}
	return caps
}

// middleware answers the server's sampling, elicitation and roots requests
// with h, refusing each one h has no handler for.
func (h Handlers) middleware(server string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case methodSampling:
				if h.Sampling == nil {
					return nil, refused(server, "sampling ("+method+")", "Sampling")
				}
				var res mcp.CreateMessageResult
				return answer(ctx, req, h.Sampling, &res)
			case methodElicitation:
				if h.Elicitation == nil {
					return nil, refused(server, "elicitation ("+method+")", "Elicitation")
				}
				var res mcp.ElicitResult
				return answer(ctx, req, h.Elicitation, &res)
			case methodRoots:
				if h.Roots == nil {
					return nil, refused(server, "the roots list ("+method+")", "Roots")
				}
				uris, err := h.Roots(ctx)
				if err != nil {
					return nil, err
				}
				res := &mcp.ListRootsResult{Roots: make([]*mcp.Root, 0, len(uris))}
				for _, u := range uris {
					res.Roots = append(res.Roots, &mcp.Root{URI: u})
				}
				return res, nil
			}
			return next(ctx, method, req)
		}
	}
}

// codeRefused is the JSON-RPC code of a refused request: one of the codes
// left to implementations (-32601, method not found, would have the SDK
// replace the message).
const codeRefused = -32000

// refused is the error a server reads for a request no handler answers.
func refused(server, what, field string) error {
	return &jsonrpc.Error{
		Code:    codeRefused,
		Message: fmt.Sprintf("the client of server %q refuses %s: the application installed no handler for it (upstream.Handlers.%s)", server, what, field),
	}
}

// answer calls handle with the request's params as JSON and decodes its
// answer into res.
func answer[R mcp.Result](ctx context.Context, req mcp.Request, handle func(context.Context, json.RawMessage) (json.RawMessage, error), res R) (mcp.Result, error) {
	params, err := json.Marshal(req.GetParams())
	if err != nil {
		return nil, err
	}
	out, err := handle(ctx, params)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(out, res); err != nil {
		return nil, fmt.Errorf("the application's handler answered JSON that is not the result: %w", err)
	}
	return res, nil
}
