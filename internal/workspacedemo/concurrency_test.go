package workspacedemo_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/internal/workspacedemo"
)

// TestConcurrentCalls runs reads, staged writes, commits, exports and
// view changes from many goroutines at once (run it with -race); every
// insert must land exactly once.
func TestConcurrentCalls(t *testing.T) {
	w := workspacedemo.New()
	const workers, rounds = 8, 10
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := range rounds {
				steps := [][2]string{
					{"countRows", `{"table":"sales.orders","filter":"status = 'late'","groupBy":"customer_id"}`},
					{"previewRows", `{"table":"sales.customers","limit":5}`},
					{"stageRowEdits", fmt.Sprintf(`{"table":"sales.customers","edits":[{"op":"insert","values":{"name":"Worker %d round %d","country":"US"}}]}`, g, i)},
					{"runQuery", `{"sql":"SELECT tier, count(*) AS n FROM sales.customers GROUP BY tier"}`},
					{"openTable", `{"table":"sales.orders"}`},
					{"applyFilter", `{"conditions":[{"column":"total","operator":"gte","value":50}]}`},
					{"listStagedEdits", `{}`},
					{"getIndexStats", `{"table":"sales.orders","includeUnused":true}`},
				}
				if i%3 == 2 {
					steps = append(steps, [2]string{"commitStagedEdits", `{}`})
				}
				for _, s := range steps {
					if _, err := callErr(w, s[0], s[1]); err != nil {
						t.Errorf("worker %d: %s: %v", g, s[0], err)
					}
				}
				out, err := callErr(w, "startExport", `{"table":"sales.customers","format":"csv"}`)
				if err != nil {
					t.Errorf("worker %d: startExport: %v", g, err)
					continue
				}
				var exp struct{ ExportID string }
				_ = json.Unmarshal(out, &exp)
				if _, err := callErr(w, "getExportStatus", fmt.Sprintf(`{"exportId":%q}`, exp.ExportID)); err != nil {
					t.Errorf("worker %d: getExportStatus: %v", g, err)
				}
			}
		})
	}
	wg.Wait()
	call(t, w, "commitStagedEdits", `{}`)
	if n := count(t, w, "sales.customers", ""); n != 12+workers*rounds {
		t.Errorf("%d customers, want %d", n, 12+workers*rounds)
	}
	if n := count(t, w, "sales.customers", "name like 'Worker %'"); n != workers*rounds {
		t.Errorf("%d inserted customers, want %d", n, workers*rounds)
	}
}
