package catalogfile_test

import (
	"fmt"
	"strings"

	"github.com/quiver-go/quiver/tools/catalogfile"
	"github.com/quiver-go/quiver/tools/contract"
)

// A tools/list response saved from an MCP server becomes runtime tool
// specs: Read checks it as the runtime would, Declarations names its tools
// in a toolset, contract.CompileToolset compiles them.
func ExampleCatalog_Declarations() {
	response := `{"jsonrpc": "2.0", "id": 1, "result": {"tools": [
  {"name": "get_weather", "description": "Current weather for a city.",
   "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
  {"name": "get_forecast", "title": "Forecast",
   "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}
]}}`
	c, err := catalogfile.Read(strings.NewReader(response), "weather.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	decls, err := c.Declarations("weather")
	if err != nil {
		fmt.Println(err)
		return
	}
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "weather", Tools: decls})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range specs {
		fmt.Printf("%s (%s)\n", s.Name, s.Title)
	}
	// The compiled codec checks what a model sends.
	fmt.Println(specs[0].Payload.Validate([]byte(`{"town": "Paris"}`)))
	// Output:
	// weather.get_weather (get_weather)
	// weather.get_forecast (Forecast)
	// city: is required
	// town: is not an allowed property: remove it (allowed: city)
}
