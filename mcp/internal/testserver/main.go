// Command testserver is the Go SDK MCP server the upstream package's tests
// call through its client, over stdio (the default) or streamable HTTP
// (-http addr). Its tools exercise every mapping of the client: structured
// content, text, isError, a call that hangs, one that sleeps, list_changed both ways, an oversized and a malformed
// result, list_changed, requests sent back to the client, names the
// client maps or skips, and many tools on small pages (-many, -page).
// -noinit never answers initialize.
//
//lint:file-ignore SA1019 the server asks its client for sampling and roots, which the client's tests answer or refuse
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	noInit := flag.Bool("noinit", false, "never answer initialize")
	many := flag.Int("many", 0, "add this many more tools (many_000…)")
	page := flag.Int("page", 0, "tools/list page size (0: the SDK's default)")
	token := flag.String("token", "", "HTTP: require this bearer token")
	header := flag.String("header", "", "HTTP: require this header, Name=value")
	flag.Parse()

	if *noInit {
		if *httpAddr == "" {
			_, _ = io.Copy(io.Discard, os.Stdin)
			return
		}
		serveHTTP(*httpAddr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
		return
	}
	srv := newServer(*many, *page)
	if *httpAddr == "" {
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	serveHTTP(*httpAddr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *token != "" && r.Header.Get("Authorization") != "Bearer "+*token {
			http.Error(w, "no valid bearer token", http.StatusUnauthorized)
			return
		}
		if name, value, ok := strings.Cut(*header, "="); ok && r.Header.Get(name) != value {
			http.Error(w, "missing header "+name, http.StatusBadRequest)
			return
		}
		h.ServeHTTP(w, r)
	}))
}

// serveHTTP serves h on addr, printing "listening <addr>" once it listens.
func serveHTTP(addr string, h http.Handler) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening %s\n", l.Addr())
	log.Fatal(http.Serve(l, h))
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type echoOut struct {
	Text   string `json:"text"`
	Length int    `json:"length"`
}

type bigIn struct {
	Bytes int `json:"bytes"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

var emptyObject = json.RawMessage(`{"type":"object"}`)

func newServer(many, page int) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "v0"}, &mcp.ServerOptions{PageSize: page})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Title: "Echo", Description: "Echoes the text, with its length."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
			return nil, echoOut{Text: in.Text, Length: len(in.Text)}, nil
		})
	raw := func(name, desc string, h mcp.ToolHandler) {
		srv.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: emptyObject}, h)
	}
	raw("text", "Answers plain text.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("plain words"), nil
	})
	raw("json_text", "Answers JSON in a text item.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(`{"a": 1, "b": [true]}`), nil
	})
	raw("mixed", "Answers two content items.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "one"}, &mcp.TextContent{Text: "two"}}}, nil
	})
	raw("fail", "Always fails.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := text("it broke: the disk is full")
		r.IsError = true
		return r, nil
	})
	raw("hang", "Never answers.", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	raw("pid", "Answers the server's process id.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: map[string]int{"pid": os.Getpid()}}, nil
	})
	raw("malformed", "Answers a result that is not an MCP tool result.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("replaced by the middleware"), nil
	})
	srv.AddTool(&mcp.Tool{Name: "big", Description: "Answers a text of the given size.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in bigIn
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return text(strings.Repeat("x", in.Bytes)), nil
		})
	srv.AddTool(&mcp.Tool{Name: "sleep", Description: "Answers after the given milliseconds.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				MS int `json:"ms"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("slept"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	srv.AddTool(&mcp.Tool{Name: "remove_tool", Description: "Removes the named tool (the server then notifies tools/list_changed).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			srv.RemoveTools(in.Name)
			return text("removed " + in.Name), nil
		})
	raw("add_tool", "Adds the tool \"added\" (the server then notifies tools/list_changed).", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		srv.AddTool(&mcp.Tool{Name: "added", InputSchema: emptyObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("added ran"), nil
		})
		return text("added"), nil
	})
	raw("sample", "Asks the client to sample.", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			r := text("sampling failed: " + err.Error())
			r.IsError = true
			return r, nil
		}
		b, _ := json.Marshal(res)
		return text(string(b)), nil
	})
	raw("elicit", "Asks the client's user a question.", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Proceed?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)})
		if err != nil {
			r := text("elicitation failed: " + err.Error())
			r.IsError = true
			return r, nil
		}
		return &mcp.CallToolResult{StructuredContent: map[string]any{"action": res.Action, "content": res.Content}}, nil
	})
	raw("roots", "Asks the client for its roots.", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			r := text("roots failed: " + err.Error())
			r.IsError = true
			return r, nil
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return &mcp.CallToolResult{StructuredContent: map[string][]string{"roots": uris}}, nil
	})
	raw("dotted.name", "A name with a dot.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: map[string]string{"called": "dotted.name"}}, nil
	})
	raw("has space", "A name no tool may have.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("never called"), nil
	})
	srv.AddTool(&mcp.Tool{Name: "bad_schema", Description: "An input schema the contract refuses.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"bogus"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("never called"), nil
		})
	for i := range many {
		raw(fmt.Sprintf("many_%03d", i), "One of many.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("many"), nil
		})
	}
	srv.AddReceivingMiddleware(malformedMiddleware)
	return srv
}

// malformedResult marshals to a tools/call result whose content is not a
// list of content items.
type malformedResult struct{ *mcp.CallToolResult }

func (malformedResult) MarshalJSON() ([]byte, error) {
	return []byte(`{"content":[{"type":"no-such-type","text":1}]}`), nil
}

// malformedMiddleware answers the tool "malformed" with a malformedResult.
func malformedMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" && p.Name == "malformed" && err == nil {
			return malformedResult{&mcp.CallToolResult{}}, nil
		}
		return res, err
	}
}
