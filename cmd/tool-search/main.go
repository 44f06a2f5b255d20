package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// The exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // the run failed (provider error, cancelled, …)
	exitUsage  = 2 // the flags or the environment are wrong; nothing ran
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args, builds the model they choose (reading keys through
// getenv), runs the agent for one turn and prints the conversation to
// stdout. It returns the process's exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tool-search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg providerConfig
	fs.StringVar(&cfg.provider, "provider", "", "`name` of the provider: openai, anthropic, compat, bedrock (Claude), bedrock-openai or bedrock-converse (empty: offline, on a scripted model)")
	fs.StringVar(&cfg.model, "model", "", "the provider's model `id` (required with -provider)")
	fs.StringVar(&cfg.baseURL, "base-url", "", "API root `URL`: required with -provider compat (e.g. http://localhost:11434/v1); replaces the provider's default with openai and anthropic")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tool-search [-provider openai|anthropic|compat|bedrock|bedrock-openai|bedrock-converse -model ID [-base-url URL]]\n\n"+
			"Runs one agent with a deferred weather tool and prints the conversation.\n"+
			"Without -provider it runs offline on a scripted model. With one it makes real,\n"+
			"billable calls: openai reads %s, anthropic reads %s, compat reads\n"+
			"%s when its server wants a key; the bedrock ones sign with the AWS\n"+
			"default chain (AWS_REGION, AWS_PROFILE or AWS_ACCESS_KEY_ID...).\n\n", openAIKeyVar, anthropicKeyVar, compatKeyVar)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tool-search: unexpected argument %q: every setting is a flag (-provider, -model, -base-url)\n", fs.Arg(0))
		return exitUsage
	}
	m, err := newModel(cfg, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "tool-search:", err)
		return exitUsage
	}
	q, err := newQuickstart(m.client, m.search)
	if err != nil {
		fmt.Fprintln(stderr, "tool-search:", err)
		return exitFailed
	}
	printSetup(stdout, m)
	stop := (&streamPrinter{w: stdout}).follow(q.rt)
	out, err := q.ask(ctx, "tool-search-1", question)
	stop()
	if err != nil {
		fmt.Fprintln(stderr, "tool-search:", err)
		return exitFailed
	}
	printConversation(stdout, out.Messages)
	printOutcome(stdout, out, !m.offline)
	return exitOK
}
