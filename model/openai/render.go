package openai

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/model"
)

// renderModel stands in for a model id when RenderTools prepares a request
// that names none: the tools array does not depend on the model.
const renderModel = "quiver-render-tools"

// RenderTools returns the "tools" array of the first request that a Client
// built with opts would send for req, byte for byte as it appears in the
// request body: the function tools of the eager definitions (and of
// deferred tools the conversation discovered that no replayed search
// output loads), then the client-executed tool_search tool whenever the
// request offers search or its history references a search call (see the
// package documentation). It returns nil when that request carries no
// tools array. A caller can pass the options it builds its Client with;
// today none of them changes the array.
//
// It runs the adapter's own preparation of req (newInvocation and params,
// as Complete does) and encodes the parameters with the SDK, without
// sending anything, so the array cannot drift from what Complete sends. It
// fails where Complete would fail before sending — a deferred definition
// without a search document, deferred tools without a positive MaxTokens,
// portable search mode, an invalid transcript — except that req need not
// resolve to a model id. Later rounds of an invocation may send another
// array as its search state changes.
func RenderTools(req *model.Request, opts ...Option) (json.RawMessage, error) {
	if req == nil {
		return nil, errors.New("openai: nil request")
	}
	c, err := New(append([]Option{WithModel(renderModel)}, opts...)...)
	if err != nil {
		return nil, err
	}
	inv, err := c.newInvocation(req)
	if err != nil {
		return nil, err
	}
	body, err := inv.params(0).MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	return members["tools"], nil
}
