package codegen_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// passthroughDesign declares a logging service whose method takes and
// returns nested types, an agent exporting a toolset whose tool forwards
// to it (Passthrough), and an agent consuming that export.
func passthroughDesign() {
	var Entry = Type("Entry", func() {
		Attribute("message", String)
		Attribute("tags", MapOf(String, String))
		Required("message")
	})
	var Receipt = Type("Receipt", func() {
		Attribute("id", String)
		Attribute("entries", ArrayOf(Entry))
		Required("id", "entries")
	})
	Service("LoggingService", func() {
		Method("LogMessage", func() {
			Payload(func() {
				Attribute("entry", Entry)
				Attribute("level", String, func() { Default("info") })
				Required("entry")
			})
			Result(func() {
				Attribute("receipt", Receipt)
				Attribute("logged", Boolean)
				Required("receipt", "logged")
			})
		})
	})
	Service("ops", func() {
		Agent("logger", "Logs messages.", func() {
			Export("logging-tools", func() {
				Tool("log_message", "Log a message", func() {
					Args(func() {
						Attribute("entry", Entry)
						Attribute("level", String)
						Required("entry")
					})
					Return(func() {
						Attribute("receipt", Receipt)
						Attribute("logged", Boolean)
						Required("receipt", "logged")
					})
					Passthrough("log_message", "LoggingService", "LogMessage")
				})
			})
		})
		Agent("front", "Answers the user.", func() {
			Use(AgentToolset("ops", "logger", "logging-tools"))
		})
	})
}

// TestPassthroughGenerated checks that a passthrough generates a direct
// call in the adapters package of the exported toolset, no agenttools
// package for an export whose tools all forward, and no warning; and runs
// a program registering the consumer with the adapters executor: the
// consumer's call of the tool calls the method once, with no child run (the
// exporting agent is not even registered) and no model request but the
// consumer's.
func TestPassthroughGenerated(t *testing.T) {
	svc, ours := generateWithServices(t, passthroughDesign)
	dir := t.TempDir()
	paths := render(t, dir, ours)
	const adapters = "gen/agents/ops/logger/exports/loggingtools/adapters/executor.go"
	if !slices.Contains(paths, adapters) {
		t.Fatalf("generated %v, want %s", paths, adapters)
	}
	for _, p := range paths {
		if strings.Contains(p, "/agenttools/") {
			t.Errorf("generated %s: an export whose tools all forward is no agent toolset", p)
		}
	}
	code := string(readFile(t, filepath.Join(dir, adapters)))
	for _, want := range []string{
		"func NewLoggingToolsExecutor(loggingServiceSvc loggingservice.Service) toolcall.Executor",
		"(Passthrough) with method LogMessage",
		"mr, err := e.loggingServiceSvc.LogMessage(ctx, mp)",
	} {
		if !strings.Contains(code, want) {
			t.Errorf("%s lacks %q:\n%s", adapters, want, code)
		}
	}
	main, err := os.ReadFile(filepath.Join("testdata", "passthroughcheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, append(svc, ours...), string(main)); !strings.HasPrefix(out, "ok") {
		t.Errorf("check program printed %q", out)
	}
}

// TestPassthroughRefusals checks the passthroughs goa gen refuses, with
// the design location.
func TestPassthroughRefusals(t *testing.T) {
	service := func() {
		Service("LoggingService", func() {
			Method("LogMessage", func() {
				Payload(func() {
					Attribute("message", String)
					Required("message")
				})
				Result(func() { Attribute("logged", Boolean) })
			})
		})
	}
	cases := map[string]struct {
		tools func()
		want  []string
	}{
		"types that do not convert": {
			tools: func() {
				Tool("log_message", "Log a message", func() {
					Args(func() { Attribute("message", Int); Required("message") })
					Passthrough("log_message", "LoggingService", "LogMessage")
				})
			},
			want: []string{`passthrough_test.go:`, `tool "log_message" of toolset "logging-tools" forwarded by Passthrough to method "LogMessage" of service "LoggingService"`, `field "message" is int in Args but string in the method payload`},
		},
		"a dropped argument": {
			tools: func() {
				Tool("log_message", "Log a message", func() {
					Args(func() {
						Attribute("message", String)
						Attribute("color", String)
						Required("message")
					})
					Passthrough("log_message", "LoggingService", "LogMessage")
				})
			},
			want: []string{`field "color" of Args is not a field of the method payload: the value would be dropped`},
		},
		"forwarded and agent-run tools": {
			tools: func() {
				Tool("log_message", "Log a message", func() {
					Args(func() { Attribute("message", String); Required("message") })
					Passthrough("log_message", "LoggingService", "LogMessage")
				})
				Tool("summarize", "Summarize the log", func() {})
			},
			want: []string{`passthrough_test.go:`, `mixes tools forwarded to service methods (Passthrough: log_message) and tools that run the agent (summarize)`},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := generateWithServicesErr(t, func() {
				service()
				Service("ops", func() {
					Agent("logger", "Logs messages.", func() {
						Export("logging-tools", c.tools)
					})
				})
			})
			if err == nil {
				t.Fatalf("Generate succeeded, want %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Generate error = %v, want %q", err, w)
				}
			}
		})
	}
}
