package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/quiver-go/quiver/examples/registry/gen/agents/front/auditor"
	"github.com/quiver-go/quiver/examples/registry/gen/agents/front/clerk"
	"github.com/quiver-go/quiver/examples/registry/gen/registries/corp"
	"github.com/quiver-go/quiver/examples/registry/gen/toolsets/shipping"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/runtime"
)

// script is what the scripted model answers, in order: the clerk's four
// planning steps (searches included), then nothing for the auditor, which
// never reaches its model.
func script() *scripted.Client {
	return scripted.New(
		// Step 1: find the stock tool, count the widgets.
		scripted.Call("search_tools", `{"query":"units of a product in stock"}`),
		scripted.Call("stock", `{"sku":"WIDGET-1"}`),
		// Step 2: shipping was published meanwhile; this step's catalog
		// has it.
		scripted.Call("search_tools", `{"query":"ship units to a city"}`),
		scripted.Call("ship", `{"sku":"WIDGET-1","units":3,"city":"Lyon"}`),
		// Step 3: the shipment was refused (admission_conflict): call again.
		scripted.Call("ship", `{"sku":"WIDGET-1","units":3,"city":"Lyon"}`),
		// Step 4: answer.
		scripted.Reply("We have 12 WIDGET-1 in stock; 3 are on their way to Lyon (parcel P-shipping-r2-1)."),
	)
}

func run(ctx context.Context, w io.Writer) error {
	reg, err := startRegistry(ctx)
	if err != nil {
		return err
	}
	defer reg.close()

	reads := &readLog{}
	// The shipping team deploys its provider while the clerk counts stock:
	// between the clerk's first and second planning steps.
	var shippingR1 *provider
	var deployErr error
	var once sync.Once
	deployShipping := func() {
		once.Do(func() {
			reads.note("while the clerk counts, the warehouse publishes toolset shipping (revision shipping-r1)")
			shippingR1, deployErr = reg.publish(shipping.CorpRegistration("shipping-r1"), shippingExecutor("shipping-r1"))
		})
	}
	inv, err := reg.publish(inventoryRegistration(), stockExecutor(deployShipping))
	if err != nil {
		return err
	}
	defer stopProvider(inv)
	fmt.Fprintln(w, "-- the warehouse publishes toolset inventory (version 1.0.0, revision inventory-r1)")

	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, portable.Wrap(script())))
	if err != nil {
		return err
	}
	defer rt.Close()
	rt.Subscribe(reads.record)
	search := model.SearchSettings{Mode: model.SearchPortable}
	if err := clerk.RegisterClerkAgent(ctx, rt, clerk.ClerkAgentConfig{Planner: planner.NewStandard(), Search: search}); err != nil {
		return err
	}
	if err := auditor.RegisterAuditorAgent(ctx, rt, auditor.AuditorAgentConfig{Planner: planner.NewStandard()}); err != nil {
		return err
	}
	if err := rt.RegisterRegistry(corp.Name, reg.client); err != nil {
		return err
	}

	desk := clerk.NewClient(rt)
	fmt.Fprintln(w, "\n== the clerk (whole registry, deferred tools)")
	out, err := desk.Run(ctx, runtime.RunInput{SessionID: "desk", Messages: []model.Message{
		model.UserMessage("How many WIDGET-1 do we have? Ship 3 to Lyon."),
	}}, runtime.WithRunID("clerk-1"))
	if err != nil {
		return err
	}
	if deployErr != nil {
		return deployErr
	}
	printed := printMessages(w, out.Messages, 0)
	reads.flush(w)
	item, err := pending(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "-- waiting for a human: %q\n", item.Prompt)

	fmt.Fprintln(w, "-- meanwhile, the warehouse replaces shipping with revision shipping-r2")
	shippingR2, err := reg.publish(shipping.CorpRegistration("shipping-r2"), shippingExecutor("shipping-r2"))
	if err != nil {
		return err
	}
	defer stopProvider(shippingR2)
	if err := stopProvider(shippingR1); err != nil && !errors.Is(err, registry.ErrReplaced) {
		return err
	}
	if err := reg.waitActive("shipping", "shipping-r2"); err != nil {
		return err
	}

	fmt.Fprintln(w, "-- the human approves")
	out, printed, err = resume(ctx, w, desk, out, item, printed)
	if err != nil {
		return err
	}
	reads.flush(w)
	item, err = pending(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "-- waiting for a human: %q\n-- the human approves\n", item.Prompt)
	out, _, err = resume(ctx, w, desk, out, item, printed)
	if err != nil {
		return err
	}
	reads.flush(w)
	fmt.Fprintf(w, "-- the run ends: %s\n", out.Reason)

	fmt.Fprintln(w, "\n== the auditor (toolset inventory pinned to version 2.0.0)")
	_, err = auditor.NewClient(rt).Run(ctx, runtime.RunInput{Messages: []model.Message{model.UserMessage("Audit WIDGET-1.")}}, runtime.WithRunID("auditor-1"))
	if err == nil {
		return fmt.Errorf("the auditor ran, but the registry publishes version 1.0.0")
	}
	fmt.Fprintf(w, "-- the run fails before its model is asked:\n   %s\n", err)
	return nil
}

// pending returns the confirmation a suspended run waits for.
func pending(out *runtime.RunOutput) (runtime.PendingItem, error) {
	if out.Suspension == nil || len(out.Suspension.Pending) != 1 {
		return runtime.PendingItem{}, fmt.Errorf("run %s ended %s, want a confirmation", out.RunID, out.Status)
	}
	return out.Suspension.Pending[0], nil
}

// resume approves item, waits for the continuation and prints the
// messages it added.
func resume(ctx context.Context, w io.Writer, c *clerk.Client, out *runtime.RunOutput, item runtime.PendingItem, printed int) (*runtime.RunOutput, int, error) {
	h, err := c.Continue(ctx, out.RunID, item.Approve())
	if err != nil {
		return nil, 0, err
	}
	next, err := h.Wait(ctx)
	if err != nil {
		return nil, 0, err
	}
	printed = printMessages(w, next.Messages, printed)
	return next, printed, nil
}

// readLog keeps the runtime's registry reads until they are printed.
type readLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *readLog) record(e runtime.Event) {
	r, ok := e.(runtime.RegistryRead)
	if !ok {
		return
	}
	how := "read at"
	if r.NotModified {
		how = "unchanged (304), still at"
	}
	l.note(fmt.Sprintf("step %d read registry %s: %s catalog revision %d", r.Step, r.Registry, how, r.Revision))
}

// note records something that happened around the model.
func (l *readLog) note(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

// flush prints the reads recorded since the last flush.
func (l *readLog) flush(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		fmt.Fprintf(w, "   · %s\n", line)
	}
	l.lines = nil
}
