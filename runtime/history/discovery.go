package history

import (
	"slices"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// Discovery records (model.DiscoveryMetaKey) outlive the turns a policy
// removes: a tool discovered in a dropped or summarized turn stays known to
// the request, as seed 000 requires of storage and compaction. What carries
// over is the tools only: Searches and Exhausted are about the turn they
// were spent in, which is never the current one when it leaves the request
// (the current turn is always kept whole).

// addDiscoveredTools merges ids into m's discovery record: tools it does not
// list yet are appended, its Searches and Exhausted are kept as they are; a
// record that already lists them all is left verbatim, and one that does
// not decode reads as empty, so ids, if any, replace it. m must own its
// metadata (a clone).
func addDiscoveredTools(m *model.Message, ids []tools.Ident) {
	d, _ := m.Discovery()
	added := false
	for _, id := range ids {
		if !slices.Contains(d.Tools, id) {
			d.Tools = append(d.Tools, id)
			added = true
		}
	}
	if added {
		m.SetDiscovery(d)
	}
}
