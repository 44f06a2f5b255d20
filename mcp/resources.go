package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is a document a client may read (resources/read): what a
// design's Resource method serves.
type Resource struct {
	// URI locates the resource, e.g. file:///docs/README.md.
	URI string
	// Name names it; [Resource.Description] says what it holds.
	Name, Description string
	// MIMEType is its media type, e.g. text/markdown.
	MIMEType string
	// Read returns its content: text, or bytes for a binary resource.
	Read func(ctx context.Context) (ResourceContent, error)
}

// ResourceContent is a resource's content: [ResourceContent.Text], or
// [ResourceContent.Blob] for binary content.
type ResourceContent struct {
	Text string
	Blob []byte
}

// Prompt is a static prompt (prompts/get): messages served as declared.
type Prompt struct {
	// Name identifies it; [Prompt.Description] says what it is for.
	Name, Description string
	// Messages are its messages, in order.
	Messages []PromptMessage
}

// PromptMessage is one message of a prompt. MCP prompts have the roles
// user and assistant only: a design's system message is served as a user
// message, first as declared.
type PromptMessage struct {
	Role, Text string
}

// checkExtras reports what is wrong with the configured resources and
// prompts.
func checkExtras(resources []Resource, prompts []Prompt) error {
	var errs []error
	uris, names := map[string]bool{}, map[string]bool{}
	for i, r := range resources {
		u, err := url.Parse(r.URI)
		switch {
		case err != nil || !u.IsAbs():
			errs = append(errs, fmt.Errorf("resource %d (%q): URI %q is not absolute", i, r.Name, r.URI))
		case uris[r.URI]:
			errs = append(errs, fmt.Errorf("resource %q: URI %q is served twice", r.Name, r.URI))
		case r.Read == nil:
			errs = append(errs, fmt.Errorf("resource %q: Read is nil", r.Name))
		}
		uris[r.URI] = true
	}
	for _, p := range prompts {
		if p.Name == "" || names[p.Name] {
			errs = append(errs, fmt.Errorf("prompt %q: names must be non-empty and unique", p.Name))
		}
		names[p.Name] = true
		for _, m := range p.Messages {
			if m.Role != "system" && m.Role != "user" && m.Role != "assistant" {
				errs = append(errs, fmt.Errorf("prompt %q: role %q is not system, user or assistant", p.Name, m.Role))
			}
		}
	}
	return errors.Join(errs...)
}

// addExtras serves the resources and prompts on a session's server.
func (s *Server) addExtras(srv *sdk.Server) {
	for _, r := range s.cfg.Resources {
		srv.AddResource(&sdk.Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType},
			func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				content, err := r.Read(ctx)
				if err != nil {
					return nil, fmt.Errorf("read %s: %w", r.URI, err)
				}
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: r.URI, MIMEType: r.MIMEType, Text: content.Text, Blob: content.Blob}}}, nil
			})
	}
	for _, p := range s.cfg.Prompts {
		res := &sdk.GetPromptResult{Description: p.Description}
		for _, m := range p.Messages {
			role := sdk.Role(m.Role)
			if m.Role == "system" {
				role = "user"
			}
			res.Messages = append(res.Messages, &sdk.PromptMessage{Role: role, Content: &sdk.TextContent{Text: m.Text}})
		}
		srv.AddPrompt(&sdk.Prompt{Name: p.Name, Description: p.Description}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return res, nil
		})
	}
}
