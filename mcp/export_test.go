package mcp

import "time"

// ListingBuilds returns how many listings the server built: one per
// (tier, catalog version) in use.
func (s *Server) ListingBuilds() int64 { return s.listingBuilds.Load() }

// CatalogVersions returns how many catalog versions the server applied to
// every session.
func (s *Server) CatalogVersions() int64 { return s.changes.Load() }

// SetUndeliveredFlush sets how long undelivered notifications are counted
// before one line reports them, until the returned func restores it.
func SetUndeliveredFlush(d time.Duration) func() {
	old := undeliveredFlush
	undeliveredFlush = d
	return func() { undeliveredFlush = old }
}
