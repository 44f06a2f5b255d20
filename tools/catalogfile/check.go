package catalogfile

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/quiver-go/quiver/tools"
)

// checkBatch is how many tools are read before their runtime checks run,
// in parallel.
const checkBatch = 64

// pendingTool is a tool read and checked field by field, waiting for the
// runtime's checks (compile).
type pendingTool struct {
	r *reader
	t toolValue
}

// queue adds a tool to the pending batch, checking the batch when full.
func (d *docReader) queue(r *reader, t toolValue) error {
	d.pending = append(d.pending, pendingTool{r, t})
	if len(d.pending) < checkBatch {
		return nil
	}
	return d.flush()
}

// flush runs the runtime's checks of the pending tools on every processor
// and adds those that pass to the catalog in file order; each that fails
// is a problem (see problem), and the read stops once there are
// MaxProblems.
func (d *docReader) flush() error {
	jobs := d.pending
	d.pending = d.pending[:0]
	errs := make([]*Error, len(jobs))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(jobs); i = int(next.Add(1)) - 1 {
				errs[i] = jobs[i].r.compile(jobs[i].t)
			}
		})
	}
	wg.Wait()
	for i, j := range jobs {
		if e := errs[i]; e != nil {
			if !d.opts.Lenient || !errors.Is(e, tools.ErrInvalidSchema) {
				if err := d.problem(e); err != nil {
					return err
				}
				continue
			}
			// A third-party schema the runtime refuses (an older draft's
			// keywords, for one): explorable, with a warning.
			d.cat.Warnings = append(d.cat.Warnings, e)
		}
		d.cat.Tools = append(d.cat.Tools, j.t.Tool)
	}
	return nil
}
