package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	goahttp "goa.design/goa/v3/http"

	genclient "github.com/quiver-go/quiver/registry/gen/http/registry/client"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools/contract"
)

// ErrExcludedByFederation is wrapped by [Client.Resolve]'s error for a
// named toolset the client's federation ([WithFederation]) does not import.
var ErrExcludedByFederation = errors.New("registry: excluded by the client's federation")

// ResolveRequest says what [Client.Resolve] reads.
type ResolveRequest struct {
	// Toolsets names the toolsets to resolve, each once; empty resolves
	// the whole registry.
	Toolsets []string
	// Known is the catalog revision of a resolution the caller holds, 0
	// for none. When the catalog is still at Known, Resolve returns a
	// [Resolution] with NotModified set (one conditional request). Named
	// toolsets removed since Known fail with toolset_removed.
	Known int64
}

// Resolution is one consistent read of a registry's contracts.
type Resolution struct {
	// Revision is the catalog revision read.
	Revision int64
	// NotModified is set when the catalog is still at
	// [ResolveRequest.Known]; [Resolution.Toolsets] is then nil.
	NotModified bool
	// Toolsets are the toolsets resolved, sorted by name, federation
	// globs applied.
	Toolsets []ResolvedToolset
}

// ResolvedToolset is a toolset's full contract and the token to call it
// with.
type ResolvedToolset struct {
	// Name is the toolset's name.
	Name string
	// Version is the published version, or "".
	Version string
	// Fingerprint is the registration's fingerprint ([contract.Fingerprint]
	// of [ResolvedToolset.Declaration]).
	Fingerprint string
	// Revision is the registration's deployment-issued revision.
	Revision string
	// Token is the registration token CallResolvedTool expects.
	Token string
	// Declaration is the published ToolSchemas(), decoded exactly as the
	// registry sent it.
	Declaration contract.ToolsetDeclaration
}

// Resolve reads the contracts of the named toolsets, or of every toolset
// the client's federation imports, and their tokens, from one consistent
// read of the registry (GET /v1/resolve). A named toolset the federation
// does not import fails before any request, wrapping
// [ErrExcludedByFederation]. The registry's errors keep their names
// ([ErrorName]): unknown_toolset, toolset_removed, unauthorized…
func (c *Client) Resolve(ctx context.Context, req ResolveRequest) (*Resolution, error) {
	what := "the whole registry"
	if len(req.Toolsets) > 0 {
		what = "toolsets " + strings.Join(quoted(req.Toolsets), ", ")
	}
	if req.Known < 0 {
		return nil, fmt.Errorf("registry: resolve %s: Known is %d: a catalog revision the registry returned, or 0 for none", what, req.Known)
	}
	names := slices.Clone(req.Toolsets)
	slices.Sort(names)
	for i, name := range names {
		if name == "" {
			return nil, fmt.Errorf("registry: resolve %s: an empty toolset name", what)
		}
		if i > 0 && names[i-1] == name {
			return nil, fmt.Errorf("registry: resolve %s: toolset %q is named twice: name each toolset once", what, name)
		}
		if why := c.consumer.federationVerdict(name); why != "" {
			return nil, fmt.Errorf("%w: toolset %q %s (WithFederation): drop it from the sources or change the patterns", ErrExcludedByFederation, name, why)
		}
	}
	p := &gen.ResolveRegistryPayload{Toolsets: names}
	if req.Known > 0 {
		etag := strconv.Quote(strconv.FormatInt(req.Known, 10))
		p.IfNoneMatch = &etag
		if len(names) > 0 {
			at := req.Known
			p.AtRevision = &at
		}
	}
	hreq, err := c.transport.BuildResolveRegistryRequest(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("registry: resolve %s: %w", what, err)
	}
	if err := genclient.EncodeResolveRegistryRequest(goahttp.RequestEncoder)(hreq, p); err != nil {
		return nil, fmt.Errorf("registry: resolve %s: %w", what, err)
	}
	resp, err := c.requests.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("registry: resolve %s: %w", what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// 304 and errors: the generated decoder (it closes the body).
		res, err := genclient.DecodeResolveRegistryResponse(numberDecoder, false)(resp)
		if err != nil {
			return nil, fmt.Errorf("registry: resolve %s: %w", what, err)
		}
		if r, ok := res.(*gen.ResolveRegistryResult); ok && r.Unchanged != nil && req.Known > 0 {
			return &Resolution{Revision: req.Known, NotModified: true}, nil
		}
		return nil, fmt.Errorf("registry: resolve %s: unexpected answer %s", what, resp.Status)
	}
	out, err := decodeResolution(resp)
	if err != nil {
		return nil, fmt.Errorf("registry: resolve %s: %w", what, err)
	}
	if len(names) == 0 {
		out.Toolsets = slices.DeleteFunc(out.Toolsets, func(ts ResolvedToolset) bool {
			return c.consumer.federationVerdict(ts.Name) != ""
		})
	}
	return out, nil
}

// resolveBody is resolve_registry's 200 body with each declaration kept as
// the registry sent it, so that it decodes exactly (the generated decoder
// hands declarations over as decoded values).
type resolveBody struct {
	CatalogRevision *int64         `json:"catalog_revision"`
	Toolsets        *[]resolveItem `json:"toolsets"`
}

type resolveItem struct {
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Fingerprint string          `json:"fingerprint"`
	Revision    string          `json:"revision"`
	Token       string          `json:"token"`
	Declaration json.RawMessage `json:"declaration"`
}

// decodeResolution decodes a resolve_registry answer, each declaration
// strictly: a field contract.ToolsetDeclaration does not know is an error,
// not a part of the contract silently dropped.
func decodeResolution(resp *http.Response) (*Resolution, error) {
	var body resolveBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("the answer is not a resolution: %w", err)
	}
	if body.CatalogRevision == nil || body.Toolsets == nil {
		return nil, errors.New("the answer lacks catalog_revision or toolsets")
	}
	out := &Resolution{Revision: *body.CatalogRevision, Toolsets: make([]ResolvedToolset, 0, len(*body.Toolsets))}
	for _, it := range *body.Toolsets {
		if it.Name == "" || it.Fingerprint == "" || it.Revision == "" || it.Token == "" {
			return nil, fmt.Errorf("toolset %q: the answer lacks its name, fingerprint, revision or token", it.Name)
		}
		ts := ResolvedToolset{Name: it.Name, Version: it.Version, Fingerprint: it.Fingerprint, Revision: it.Revision, Token: it.Token}
		if len(it.Declaration) == 0 || string(it.Declaration) == "null" {
			return nil, fmt.Errorf("toolset %q: the answer has no declaration", it.Name)
		}
		dec := json.NewDecoder(bytes.NewReader(it.Declaration))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ts.Declaration); err != nil {
			return nil, fmt.Errorf("toolset %q: its declaration does not decode as a contract.ToolsetDeclaration (a registry newer than this client?): %w", it.Name, err)
		}
		out.Toolsets = append(out.Toolsets, ts)
	}
	return out, nil
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}
