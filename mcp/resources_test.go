package mcp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/mcp"
)

func TestResourcesAndPrompts(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) {
		c.Resources = []mcp.Resource{{URI: "file:///docs/README.md", Name: "readme", MIMEType: "text/markdown",
			Read: func(context.Context) (mcp.ResourceContent, error) { return mcp.ResourceContent{Text: "# Ops\n"}, nil }}}
		c.Prompts = []mcp.Prompt{{Name: "greeting", Description: "Friendly greeting", Messages: []mcp.PromptMessage{
			{Role: "system", Text: "You are a helpful assistant"}, {Role: "user", Text: "Hello!"}}}}
	})
	c := e.mustConnect("ro-key")
	ctx := context.Background()
	list, err := c.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 1 || list.Resources[0].URI != "file:///docs/README.md" {
		t.Fatalf("resources/list = %+v, %v", list, err)
	}
	read, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: "file:///docs/README.md"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "# Ops\n" || read.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("resources/read = %+v, %v", read, err)
	}
	prompt, err := c.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greeting"})
	if err != nil || len(prompt.Messages) != 2 || prompt.Messages[1].Content.(*sdk.TextContent).Text != "Hello!" {
		t.Fatalf("prompts/get = %+v, %v", prompt, err)
	}
	if _, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: "file:///nope"}); err == nil {
		t.Fatal("an unknown resource was read")
	}
}

func TestResourcesAndPromptsAreChecked(t *testing.T) {
	src, _ := mcp.Toolsets(nil, nil)
	_, err := mcp.New(mcp.Config{Source: src,
		Resources: []mcp.Resource{{URI: "README.md", Name: "readme"}},
		Prompts:   []mcp.Prompt{{Name: "p", Messages: []mcp.PromptMessage{{Role: "robot", Text: "x"}}}},
	})
	if err == nil || !strings.Contains(err.Error(), "is not absolute") || !strings.Contains(err.Error(), `role "robot"`) {
		t.Fatalf("New = %v", err)
	}
}
