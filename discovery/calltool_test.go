package discovery

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// TestCallToolModeAnswersFoundToolsAgain: in call-tool mode a search that
// matches a tool found before answers it again with its schema (its
// definition lives only in answers), and records nothing new; outside it,
// such a search finds nothing.
func TestCallToolModeAnswersFoundToolsAgain(t *testing.T) {
	for _, callTool := range []bool{false, true} {
		req := catalogRequest()
		req.Search.CallTool = callTool
		req.Discovery = &model.DiscoveryState{Tools: []tools.Ident{"ws.startExport"}}
		turn, err := newEngine(t).Begin(req, "search_tools")
		if err != nil {
			t.Fatal(err)
		}
		a := turn.SearchQuery("startExport")
		if !callTool {
			if a.Kind != NoMatch {
				t.Fatalf("outside call-tool mode a found tool was answered again: %+v", a)
			}
			continue
		}
		if a.Kind != Found || len(a.Tools) != 1 || a.Tools[0].Name != "startExport" {
			t.Fatalf("call-tool mode: %+v, want startExport again", a)
		}
		if js := string(a.CallToolJSON(model.CallToolName)); !strings.Contains(js, `"inputSchema"`) {
			t.Fatalf("answer = %s", js)
		}
		if rec, _ := turn.Record(); len(rec.Tools) != 0 {
			t.Fatalf("a tool found again was recorded as new: %+v", rec)
		}
	}
}
