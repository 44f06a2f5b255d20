package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/quiver-go/quiver/examples/shop/gen/agents/shop/clerk"
	receiptsadapters "github.com/quiver-go/quiver/examples/shop/gen/agents/shop/clerk/exports/receipts/adapters"
	ordersadapters "github.com/quiver-go/quiver/examples/shop/gen/agents/shop/clerk/toolsets/orders/adapters"
	"github.com/quiver-go/quiver/examples/shop/gen/agents/shop/desk"
	"github.com/quiver-go/quiver/examples/shop/gen/shop"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
)

// The model ids the agents' configs pick their scripted models by.
const (
	clerkModel = "clerk-model"
	deskModel  = "desk-model"
)

// service implements the generated shop.Service: what the application
// writes. It prints the payloads it receives, as the Go values the
// adapters built.
type service struct {
	w      io.Writer
	placed map[string]*shop.Order
}

// Place prices the order's lines at 2.5 each.
func (s *service) Place(_ context.Context, p *shop.PlacePayload) (*shop.PlaceResult, error) {
	o := p.Order
	fmt.Fprintf(s.w, "shop.Place: order %s, dry run %t, ships to %s\n", o.ID, p.DryRun, city(o.Ship))
	total := 0.0
	for _, l := range o.Lines {
		note := ""
		if l.Note != nil {
			note = ", note " + *l.Note
		}
		fmt.Fprintf(s.w, "  line %s x%d%s\n", l.Sku, l.Qty, note)
		total += 2.5 * float64(l.Qty)
	}
	s.placed[o.ID] = o
	ref := "wh-7"
	return &shop.PlaceResult{
		Order:       o,
		Total:       total,
		Summary:     &shop.Summary{Count: len(o.Lines), Lines: o.Lines},
		InternalRef: &ref,
	}, nil
}

// GetReceipt bills a placed order.
func (s *service) GetReceipt(_ context.Context, p *shop.GetReceiptPayload) (*shop.GetReceiptResult, error) {
	fmt.Fprintf(s.w, "shop.GetReceipt: order %s\n", p.OrderID)
	o, ok := s.placed[p.OrderID]
	if !ok {
		return nil, fmt.Errorf("no order %s", p.OrderID)
	}
	total := 0.0
	for _, l := range o.Lines {
		total += 2.5 * float64(l.Qty)
	}
	return &shop.GetReceiptResult{Receipt: &shop.Receipt{OrderID: o.ID, Lines: o.Lines, Total: total}}, nil
}

func city(a *shop.Address) string {
	if a == nil {
		return "nowhere"
	}
	return a.City
}

// printing wraps an executor, printing each call's result and server data.
func printing(w io.Writer, exec toolcall.Executor) toolcall.Executor {
	return toolcall.ExecutorFunc(func(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		res, err := exec.Execute(ctx, call)
		if err != nil || res.Failure != nil {
			return res, err
		}
		fmt.Fprintf(w, "executor: %s returns %s\n", call.Ident, res.Result)
		for _, sd := range res.ServerData {
			fmt.Fprintf(w, "executor: %s server data %s (%s): %s\n", call.Ident, sd.Kind, sd.Audience, sd.Data)
		}
		return res, nil
	})
}

// run registers both agents on one runtime with the generated adapters
// executors over one service, and runs each once, printing to w.
func run(ctx context.Context, w io.Writer) error {
	clerkModelClient, deskModelClient := clerkScript(w), deskScript(w)
	rt, err := runtime.New(
		// No agent uses the default class: a request reaching it fails.
		runtime.WithModel(model.ModelClassDefault, scripted.New()),
		runtime.WithModelID(clerkModel, clerkModelClient),
		runtime.WithModelID(deskModel, deskModelClient),
	)
	if err != nil {
		return err
	}
	svc := &service{w: w, placed: map[string]*shop.Order{}}
	if err := clerk.RegisterClerkAgent(ctx, rt, clerk.ClerkAgentConfig{
		ModelID:   clerkModel,
		Executors: map[string]toolcall.Executor{clerk.ToolsetOrders: printing(w, ordersadapters.NewOrdersExecutor(svc))},
	}); err != nil {
		return err
	}
	// The desk's receipts toolset is the clerk's export: all its tools
	// forward to the service, so it is a plain toolset run by the adapters
	// executor, not an agent toolset.
	if err := desk.RegisterDeskAgent(ctx, rt, desk.DeskAgentConfig{
		ModelID:   deskModel,
		Executors: map[string]toolcall.Executor{desk.ToolsetReceipts: printing(w, receiptsadapters.NewReceiptsExecutor(svc))},
	}); err != nil {
		return err
	}
	for _, a := range []struct {
		name, question string
		client         interface {
			Run(context.Context, runtime.RunInput, ...runtime.RunOption) (*runtime.RunOutput, error)
		}
	}{
		{clerk.Name, "Two apples and a pear to Lyon, please.", clerk.NewClient(rt)},
		{desk.Name, "What do I owe for order o-1?", desk.NewClient(rt)},
	} {
		fmt.Fprintf(w, "user to %s: %s\n", a.name, a.question)
		out, err := a.client.Run(ctx, runtime.RunInput{Messages: []model.Message{model.UserMessage(a.question)}})
		if err != nil {
			return err
		}
		if out.Status != runtime.StatusCompleted || out.Final == nil {
			return fmt.Errorf("the run of %s ended %s (%s) without an answer", a.name, out.Status, out.Reason)
		}
		fmt.Fprintf(w, "answer of %s: %s\n", out.Agent, out.Final.Text)
	}
	// Each model answered its own two requests: the receipt call ran no
	// child run of the clerk, which would have asked the clerk's model.
	if n, m := clerkModelClient.Remaining(), deskModelClient.Remaining(); n != 0 || m != 0 {
		return fmt.Errorf("scripted steps left: clerk %d, desk %d", n, m)
	}
	return nil
}

// clerkScript is the clerk's model: it places the order, then answers
// with the total.
func clerkScript(w io.Writer) *scripted.Client {
	return scripted.New(
		scripted.Choose(func(*model.Request) scripted.Step {
			payload := `{"order":{"id":"o-1","lines":[{"sku":"apple","qty":2},{"sku":"pear","note":"ripe"}],"ship":{"city":"Lyon"}}}`
			fmt.Fprintf(w, "clerk: calls place %s\n", payload)
			return scripted.Call("place", payload)
		}),
		scripted.Choose(func(req *model.Request) scripted.Step {
			var r struct {
				Total float64 `json:"total"`
			}
			if err := lastResult(req, &r); err != nil {
				return scripted.Fail(fmt.Errorf("clerk: %w", err))
			}
			return scripted.Reply(fmt.Sprintf("Placed: %.2f in all.", r.Total))
		}),
	)
}

// deskScript is the desk's model: it reads the receipt, then answers.
func deskScript(w io.Writer) *scripted.Client {
	return scripted.New(
		scripted.Choose(func(*model.Request) scripted.Step {
			payload := `{"order_id":"o-1"}`
			fmt.Fprintf(w, "desk: calls receipt %s\n", payload)
			return scripted.Call("receipt", payload)
		}),
		scripted.Choose(func(req *model.Request) scripted.Step {
			var r struct {
				Receipt struct {
					Total float64 `json:"total"`
				} `json:"receipt"`
			}
			if err := lastResult(req, &r); err != nil {
				return scripted.Fail(fmt.Errorf("desk: %w", err))
			}
			return scripted.Reply(fmt.Sprintf("You owe %.2f.", r.Receipt.Total))
		}),
	)
}

// lastResult decodes the content of the request's last tool result into v.
func lastResult(req *model.Request, v any) error {
	var last *model.ToolResult
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				last = p.ToolResult
			}
		}
	}
	switch {
	case last == nil:
		return fmt.Errorf("no tool result to read")
	case last.IsError:
		return fmt.Errorf("%s failed: %s", last.Name, last.Content)
	}
	if err := json.Unmarshal(last.Content, v); err != nil {
		return fmt.Errorf("the result of %s: %w", last.Name, err)
	}
	return nil
}
