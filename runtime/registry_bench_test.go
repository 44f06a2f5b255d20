package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools/contract"
)

// benchVerbs and benchNouns make the benchmark's tools distinct and
// searchable.
var (
	benchVerbs = []string{"list", "get", "create", "update", "delete", "export", "import", "archive", "search", "summarize"}
	benchNouns = []string{"invoice", "customer", "order", "ticket", "report", "shipment", "contract", "payment", "product", "employee"}
)

// benchToolsets returns n toolsets of per tools each.
func benchToolsets(n, per int) []contract.ToolsetDeclaration {
	out := make([]contract.ToolsetDeclaration, n)
	for i := range out {
		ts := contract.ToolsetDeclaration{Name: fmt.Sprintf("svc%03d", i), Description: fmt.Sprintf("Service %d.", i)}
		for j := range per {
			verb, noun := benchVerbs[j%len(benchVerbs)], benchNouns[(i+j/len(benchVerbs))%len(benchNouns)]
			ts.Tools = append(ts.Tools, contract.ToolDeclaration{
				Name:        fmt.Sprintf("%s_%s_%d", verb, noun, j),
				Title:       fmt.Sprintf("%s %s", verb, noun),
				Description: fmt.Sprintf("%s a %s record of service %d, by id or by filter.", verb, noun, i),
				InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"filter":{"type":"string"}}}`),
			})
		}
		out[i] = ts
	}
	return out
}

// BenchmarkPlanningStep5000Tools measures one planning step of an agent
// whose 5,000 deferred tools come from a registry (conditional read of an
// unchanged catalog + catalog build + one search) against the same agent
// with the same tools compiled, in the same run. The difference is what
// the registry adds per planning step.
//
//	go test -run x -bench PlanningStep5000Tools ./runtime
func BenchmarkPlanningStep5000Tools(b *testing.B) {
	decls := benchToolsets(100, 50)
	reg := registrytest.Start(b, registrytest.Options{LeaseTTL: time.Hour})
	provider := reg.Client(b, "")
	for _, d := range decls {
		registrytest.Register(b, provider, d, "r1", 1, false)
	}
	search := model.SearchSettings{Mode: model.SearchPortable}
	setup := func(b *testing.B, registryBacked bool) (*Runtime, *swapClient) {
		sc := &swapClient{}
		rt, err := New(WithModel(model.ModelClassDefault, portable.Wrap(sc)))
		if err != nil {
			b.Fatal(err)
		}
		agent := AgentRegistration{Name: "a", Planner: planner.NewStandard(), Search: search}
		if registryBacked {
			if err := rt.RegisterRegistry("corp", reg.Client(b, "")); err != nil {
				b.Fatal(err)
			}
			agent.Registries = []RegistryUse{{Registry: "corp", DeferAll: true}}
		} else {
			for _, d := range decls {
				specs, err := contract.CompileToolset(d)
				if err != nil {
					b.Fatal(err)
				}
				exec := ToolExecutorFunc(func(context.Context, *ToolCall) (*planner.ToolResult, error) { return nil, nil })
				if err := rt.RegisterToolset(ToolsetRegistration{Name: d.Name, Specs: specs, Executor: exec}); err != nil {
					b.Fatal(err)
				}
				agent.Uses = append(agent.Uses, ToolsetUse{Toolset: d.Name, DeferAll: true})
			}
		}
		if err := rt.RegisterAgent(agent); err != nil {
			b.Fatal(err)
		}
		return rt, sc
	}
	type side struct {
		rt    *Runtime
		model *swapClient
		spent time.Duration
	}
	step := func(b *testing.B, s *side) {
		s.model.cur.Store(scripted.New(scripted.Call("search_tools", `{"query":"export invoice report"}`), scripted.Reply("done")))
		in := planInput{State: runState{RunID: "r", TurnID: "r/turn", Agent: "a",
			Transcript: []model.Message{model.UserMessage("export the invoice report")}}}
		start := time.Now()
		out, err := s.rt.planActivity(context.Background(), in)
		s.spent += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if out.Result.FinalResponse == nil || len(out.Snapshot.Tools) != 5000 {
			b.Fatalf("step: final %v, %d tools", out.Result.FinalResponse, len(out.Snapshot.Tools))
		}
	}
	var compiled, registered side
	compiled.rt, compiled.model = setup(b, false)
	registered.rt, registered.model = setup(b, true)
	// The first read and compilation are not what a step costs.
	step(b, &compiled)
	step(b, &registered)
	compiled.spent, registered.spent = 0, 0
	n := 0
	for b.Loop() {
		// Both agents plan in every iteration, in alternating order, so
		// the machine's noise falls on both alike.
		if n%2 == 0 {
			step(b, &compiled)
			step(b, &registered)
		} else {
			step(b, &registered)
			step(b, &compiled)
		}
		n++
	}
	perStep := func(d time.Duration) float64 { return float64(d) / float64(n) / float64(time.Millisecond) }
	b.ReportMetric(perStep(compiled.spent), "compiled-ms/step")
	b.ReportMetric(perStep(registered.spent), "registry-ms/step")
	b.ReportMetric(perStep(registered.spent-compiled.spent), "added-ms/step")
}

// swapClient forwards to the scripted client of the current iteration.
type swapClient struct {
	cur atomic.Pointer[scripted.Client]
}

func (s *swapClient) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	return s.cur.Load().Complete(ctx, req)
}

func (s *swapClient) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	return s.cur.Load().Stream(ctx, req)
}

// SupportsSearch implements model.SearchCapable as the scripted client does.
func (s *swapClient) SupportsSearch(settings model.SearchSettings) error {
	return s.cur.Load().SupportsSearch(settings)
}
