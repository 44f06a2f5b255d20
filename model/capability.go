package model

import (
	"errors"
	"fmt"
)

// ErrToolSearchUnsupported is wrapped by every error of a client that
// cannot discover deferred tools the way an agent's search settings ask:
// the runtime never falls back to advertising them eagerly. The wrapping
// error says which fix applies.
var ErrToolSearchUnsupported = errors.New("model: tool search unsupported")

// SearchCapable is implemented by clients that declare how they discover
// deferred tools. The runtime asks before any model request, for every
// agent that defers tools: when the agent is registered if its client is
// known then, and when a run starts. A client that does not implement it
// is taken to have no native search (see CheckSearch).
//
// The adapters answer: model/openai and model/anthropic search natively
// (SearchNative), on Bedrock too; model/compat only in portable mode,
// which it runs itself; model/bedrock (Converse) in neither, so it needs
// portable.Wrap; portable.Wrap answers portable mode and forwards the native one
// to the client it wraps; model/scripted refuses both modes unless asked:
// native mode after its WithNativeSearch, portable mode through
// portable.Wrap.
type SearchCapable interface {
	// SupportsSearch returns nil when the client can discover deferred
	// tools under settings. Otherwise it returns an error naming the fix:
	// wrapping ErrToolSearchUnsupported when the client cannot search that
	// way, or another error for settings it refuses (a search tool name
	// its provider cannot carry, an invalid search option).
	SupportsSearch(settings SearchSettings) error
}

// CheckSearch reports whether c can discover deferred tools under s: c's
// own answer when it implements SearchCapable; otherwise
// ErrToolSearchUnsupported, wrapped with the fix (portable mode needs
// portable.Wrap; a client that declares nothing has no native search).
func CheckSearch(c Client, s SearchSettings) error {
	if err := s.checkMode(); err != nil {
		return err
	}
	if sc, ok := c.(SearchCapable); ok {
		return sc.SupportsSearch(s)
	}
	if s.Mode == SearchPortable {
		return errPortableNeedsWrap(s)
	}
	return fmt.Errorf("%T declares no native tool search (model.SearchCapable): opt into portable search (wrap the client with portable.Wrap and set Search.Mode to model.SearchPortable), or use an adapter with native search (model/openai, model/anthropic): %w", c, ErrToolSearchUnsupported)
}

// NativeSearch is the SupportsSearch answer of a client whose provider
// searches natively and that is not wrapped for portable search: nil in
// native mode; in portable mode an error wrapping ErrToolSearchUnsupported
// that names portable.Wrap. Adapters also return it, wrapped with their
// prefix, for a request in portable mode that reached them directly.
func NativeSearch(s SearchSettings) error {
	if err := s.checkMode(); err != nil {
		return err
	}
	if s.Mode == SearchPortable {
		return errPortableNeedsWrap(s)
	}
	return nil
}

// errPortableNeedsWrap is the refusal of portable mode by a client that is
// not wrapped for it: the model would be told to call a search tool
// nothing answers.
func errPortableNeedsWrap(s SearchSettings) error {
	return fmt.Errorf("search mode %q needs the client wrapped with portable.Wrap, which answers %s; or leave the agent on native search (model.SearchNative) with an adapter that has one: %w", s.Mode, s.SearchToolName(), ErrToolSearchUnsupported)
}

// checkMode refuses a search mode that is neither SearchNative nor
// SearchPortable.
func (s SearchSettings) checkMode() error {
	if s.CallTool && s.Mode != SearchPortable {
		return fmt.Errorf("SearchSettings.CallTool needs portable search (Mode: model.SearchPortable): native search adds found tools to the provider's tool list itself: %w", ErrToolSearchUnsupported)
	}
	switch s.Mode {
	case SearchNative, SearchPortable:
		return nil
	}
	return fmt.Errorf("unknown search mode %q: use model.SearchNative or model.SearchPortable: %w", s.Mode, ErrToolSearchUnsupported)
}

// ErrNoModel is wrapped by the error of a request whose model id a client
// cannot resolve (ResolveModel).
var ErrNoModel = errors.New("model: no model id")

// ResolveModel returns the model id of req the way every adapter resolves
// it: req.Model, else the id classes maps req.Class to
// (ModelClassDefault when empty), else fallback — the client's WithModel
// id. With none it returns ErrNoModel, wrapped with the fix.
func ResolveModel(req *Request, classes map[ModelClass]string, fallback string) (string, error) {
	if req.Model != "" {
		return req.Model, nil
	}
	class := req.Class
	if class == "" {
		class = ModelClassDefault
	}
	if id, ok := classes[class]; ok {
		return id, nil
	}
	if fallback != "" {
		return fallback, nil
	}
	return "", fmt.Errorf("%w for class %q: set Request.Model, or configure the client with WithModel or WithClassModel", ErrNoModel, class)
}
