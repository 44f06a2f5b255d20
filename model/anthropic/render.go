package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/model"
)

// renderModel stands in for a model id when RenderTools prepares a request
// that names none: the tools array does not depend on the model.
const renderModel = "quiver-render-tools"

// RenderTools returns the "tools" array of the first request that a Client
// built with opts would send for req, byte for byte as it appears in the
// request body: one custom tool per definition, in request order, deferred
// ones with "defer_loading": true, declared examples as "input_examples"
// where the adapter sends them, then the search tool of the variant
// (WithSearch) when the adapter offers search, and "cache_control" on the
// last tool for req.Cache.AfterTools (see the package documentation). It
// returns nil when that request carries no tools array.
//
// Only the options that shape the tools array matter (WithSearch,
// WithClientSearchToolName); the others are accepted and ignored, so a
// caller can pass the options of its Client. It runs the adapter's own
// preparation of req (prepare, as Complete does) and encodes the tools with
// the SDK, without sending anything, so the array cannot drift from what
// Complete sends. It fails where Complete would fail before sending — no
// positive MaxTokens, a search mode other than native with deferred tools,
// an invalid definition or transcript — except that req need not resolve
// to a model id.
func RenderTools(req *model.Request, opts ...Option) (json.RawMessage, error) {
	c, err := New(append([]Option{WithModel(renderModel)}, opts...)...)
	if err != nil {
		return nil, err
	}
	inv, err := c.prepare(req)
	if err != nil {
		return nil, err
	}
	body, err := sdk.MessageNewParams{Tools: inv.tools.params}.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode request: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, fmt.Errorf("anthropic: encode request: %w", err)
	}
	return members["tools"], nil
}
