package codegen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/codegen"
	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/dsl/dsltest"
)

// bindToNestedDesign declares a service whose method payload and result
// nest user types: an array of objects (lines), a map of user types
// (by_sku), an optional nested object (ship) and defaults at depth
// (Line.qty). Tool "place" reuses the service's types; tool "quote" has
// types of its own, with other names and fewer fields; both project server
// data from nested result fields.
func bindToNestedDesign() {
	var Line = Type("Line", func() {
		Attribute("sku", String)
		Attribute("qty", Int, func() { Default(1) })
		Attribute("note", String)
		Required("sku")
	})
	var Address = Type("Address", func() {
		Attribute("city", String)
		Attribute("zip", String)
		Required("city")
	})
	var Order = Type("Order", func() {
		Attribute("id", String)
		Attribute("lines", ArrayOf(Line))
		Attribute("ship", Address)
		Attribute("by_sku", MapOf(String, Line))
		Attribute("labels", MapOf(String, ArrayOf(String)))
		Required("id", "lines")
	})
	var Evidence = Type("Evidence", func() {
		Attribute("source", String)
		Attribute("line", Line)
		Required("source")
	})
	var Summary = Type("Summary", func() {
		Attribute("count", Int)
		Attribute("lines", ArrayOf(Line))
		Required("count")
	})
	Service("shop", func() {
		Method("Place", func() {
			Payload(func() {
				Attribute("order", Order)
				Attribute("dry_run", Boolean, func() { Default(false) })
				Required("order")
			})
			Result(func() {
				Attribute("order", Order)
				Attribute("total", Float64)
				Attribute("summary", Summary)
				Attribute("audit", ArrayOf(Evidence))
				Attribute("internal", String)
				Required("order", "total")
			})
		})
	})
	var QuoteLine = Type("QuoteLine", func() {
		Attribute("sku", String)
		Attribute("qty", Int)
		Required("sku")
	})
	var QuoteOrder = Type("QuoteOrder", func() {
		Attribute("id", String)
		Attribute("lines", ArrayOf(QuoteLine))
		Required("id", "lines")
	})
	Toolset("shopping", func() {
		Tool("place", "Place an order.", func() {
			Args(func() {
				Attribute("order", Order)
				Attribute("dry_run", Boolean)
				Required("order")
			})
			Return(func() {
				Attribute("order", Order)
				Attribute("total", Float64)
				Required("order", "total")
			})
			BindTo("shop", "Place")
			ServerData("shop.summary", Summary, func() {
				AudienceInternal()
				FromMethodResultField("summary")
			})
			ServerData("shop.audit", ArrayOf(Evidence), func() {
				AudienceEvidence()
				FromMethodResultField("audit")
			})
		})
		Tool("quote", "Quote an order.", func() {
			Args(func() {
				Attribute("order", QuoteOrder)
				Required("order")
			})
			Return(func() {
				Attribute("order", QuoteOrder)
				Required("order")
			})
			BindTo("shop", "Place")
		})
	})
}

// TestBindToNestedBuilds builds the adapters of bindToNestedDesign and
// runs a program round-tripping nested values through them: the payload
// the method sees, the tool result and the server data.
func TestBindToNestedBuilds(t *testing.T) {
	svc, ours := generateWithServices(t, bindToNestedDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "bindtonestedcheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, append(svc, ours...), string(main)); !strings.HasPrefix(out, "ok") {
		t.Errorf("check program printed %q", out)
	}
}

// TestBindToNestedRefusals checks that the shapes the adapters cannot
// convert are refused at generation, naming the field by its path.
func TestBindToNestedRefusals(t *testing.T) {
	line := func() {
		Attribute("sku", String)
		Attribute("qty", Int)
		Required("sku")
	}
	// Each case declares, at the top level of the design, the type of the
	// tool's Args.
	order := func(name string, fields func()) any {
		o := Type(name+"Order", fields)
		return Type(name+"Args", func() {
			Attribute("order", o)
			Required("order")
		})
	}
	cases := map[string]struct {
		args func() any
		want string
	}{
		"dropped nested argument": {
			args: func() any {
				l := Type("L1", func() {
					Attribute("sku", String)
					Attribute("color", String)
					Required("sku")
				})
				return order("A1", func() {
					Attribute("lines", ArrayOf(l))
					Required("lines")
				})
			},
			want: `field "order.lines[].color" of Args is not a field of the method payload: the value would be dropped`,
		},
		"nested type mismatch": {
			args: func() any {
				l := Type("L2", func() {
					Attribute("sku", Int)
					Required("sku")
				})
				return order("A2", func() {
					Attribute("lines", ArrayOf(l))
					Required("lines")
				})
			},
			want: `field "order.lines[].sku" is int in Args but string in the method payload`,
		},
		"nested required missing": {
			args: func() any {
				l := Type("L3", func() { Attribute("qty", Int) })
				return order("A3", func() {
					Attribute("lines", ArrayOf(l))
					Required("lines")
				})
			},
			want: `field "order.lines[].sku" is required by the method payload but Args lacks it`,
		},
		"nested optional into required": {
			args: func() any {
				l := Type("L4", line)
				return order("A4", func() { Attribute("lines", ArrayOf(l)) })
			},
			want: `field "order.lines" is optional in Args but required in the method payload`,
		},
		"map value mismatch": {
			args: func() any {
				l := Type("L5", line)
				return order("A5", func() {
					Attribute("lines", ArrayOf(l))
					Attribute("by_sku", MapOf(String, String))
					Required("lines")
				})
			},
			want: `field "order.by_sku{}" is string in Args but user type Line in the method payload`,
		},
		"map key mismatch": {
			args: func() any {
				l := Type("L6", line)
				return order("A6", func() {
					Attribute("lines", ArrayOf(l))
					Attribute("by_sku", MapOf(Int, l))
					Required("lines")
				})
			},
			want: `field "order.by_sku{key}" is int in Args but string in the method payload`,
		},
		"union": {
			args: func() any {
				l := Type("L7", line)
				return order("A7", func() {
					Attribute("lines", ArrayOf(l))
					OneOf("pick", func() {
						Attribute("a", String)
						Attribute("c", Int)
					})
					Required("lines")
				})
			},
			want: `field "order.pick" is a union of a, c in Args but of a, b in the method payload: unions convert branch by branch, the same in the same order`,
		},
		"union branch mismatch": {
			args: func() any {
				l := Type("L8", line)
				return order("A8", func() {
					Attribute("lines", ArrayOf(l))
					OneOf("pick", func() {
						Attribute("a", String)
						Attribute("b", String)
					})
					Required("lines")
				})
			},
			want: `field "order.pick.b" is string (user type pickB) in Args but int (user type pickB) in the method payload`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root, err := dsltest.Run(func() {
				Line := Type("Line", line)
				Order := Type("Order", func() {
					Attribute("lines", ArrayOf(Line))
					Attribute("by_sku", MapOf(String, Line))
					OneOf("pick", func() {
						Attribute("a", String)
						Attribute("b", Int)
					})
					Required("lines")
				})
				Service("svc", func() {
					Method("M", func() {
						Payload(func() {
							Attribute("order", Order)
							Required("order")
						})
					})
				})
				args := c.args()
				Toolset("ts", func() {
					Tool("t", "A tool.", func() {
						Args(args)
						BindTo("svc", "M")
					})
				})
			})
			if err != nil {
				t.Fatalf("evaluate design: %v", err)
			}
			_, err = codegen.Generate("example.com/app/gen", []eval.Root{goaexpr.Root, root}, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `tool "t" of toolset "ts" bound to method "M" of service "svc"`) {
				t.Errorf("Generate error = %v, want %q", err, c.want)
			}
		})
	}
}

// TestBindToSeedServerData generates and builds the seed's server data
// example (003, ServerData/Audience): a tool bound to a method whose result
// nests a user type with an array of user types (chart_sidecar) and an
// array of user types (evidence), both projected as server data.
func TestBindToSeedServerData(t *testing.T) {
	svc, ours := generateWithServices(t, func() {
		TimeSeriesPoint := Type("TimeSeriesPoint", func() {
			Attribute("timestamp", String, "RFC3339 timestamp")
			Attribute("value", Float64, "Measured value")
			Required("timestamp", "value")
		})
		TimeSeriesServerData := Type("TimeSeriesServerData", func() {
			Attribute("data_points", ArrayOf(TimeSeriesPoint), "Full time series data")
			Attribute("unit", String, "Measurement unit")
			Attribute("resolution", String, "Data resolution (e.g., '1m', '5m', '1h')")
			Required("data_points")
		})
		Evidence := Type("Evidence", func() {
			Attribute("source", String, "Where the data comes from")
			Required("source")
		})
		Service("metrics", func() {
			Method("series", func() {
				Payload(func() { Attribute("device_id", String); Required("device_id") })
				Result(func() {
					Attribute("summary", String)
					Attribute("chart_sidecar", TimeSeriesServerData)
					Attribute("evidence", ArrayOf(Evidence))
				})
			})
			Agent("analyst", "Explain device metrics.", func() {
				Use("metrics", func() {
					Tool("get_time_series", "Get time series data", func() {
						Args(func() { Attribute("device_id", String); Required("device_id") })
						Return(func() { Attribute("summary", String) })
						BindTo("series")
						ServerData("metrics.time_series.chart_points", TimeSeriesServerData, func() {
							AudienceInternal()
							FromMethodResultField("chart_sidecar")
						})
						ServerData("audit.evidence", ArrayOf(Evidence), func() {
							AudienceEvidence()
							FromMethodResultField("evidence")
						})
					})
				})
			})
		})
	})
	var adapters string
	for _, f := range ours {
		if strings.HasSuffix(f.Path, "/adapters/executor.go") {
			adapters = f.Path
		}
	}
	if adapters == "" {
		t.Fatal("no adapters generated")
	}
	pkg := "example.com/app/" + strings.TrimSuffix(adapters, "/executor.go")
	main := `package main

import (
	"context"
	"encoding/json"
	"fmt"

	"example.com/app/gen/metrics"
	"github.com/quiver-go/quiver/runtime"
	adapters "` + pkg + `"
)

type svc struct{}

func (svc) Series(_ context.Context, p *metrics.SeriesPayload) (*metrics.SeriesResult, error) {
	s := "ok " + p.DeviceID
	return &metrics.SeriesResult{
		Summary:      &s,
		ChartSidecar: &metrics.TimeSeriesServerData{DataPoints: []*metrics.TimeSeriesPoint{{Timestamp: "t0", Value: 1.5}}},
		Evidence:     []*metrics.Evidence{{Source: "probe"}},
	}, nil
}

func main() {
	res, err := adapters.NewMetricsExecutor(svc{}).Execute(context.Background(),
		&runtime.ToolCall{Ident: "metrics.get_time_series", Payload: json.RawMessage(` + "`" + `{"device_id":"d1"}` + "`" + `)})
	if err != nil || res.Failure != nil || len(res.ServerData) != 2 {
		panic(fmt.Sprintf("%+v %v", res, err))
	}
	fmt.Println(string(res.Result), string(res.ServerData[0].Data), string(res.ServerData[1].Data))
}
`
	out := buildAndRun(t, append(svc, ours...), main)
	const want = `{"summary":"ok d1"} {"data_points":[{"timestamp":"t0","value":1.5}]} [{"source":"probe"}]`
	if strings.TrimSpace(out) != want {
		t.Errorf("check program printed %q, want %q", out, want)
	}
}
