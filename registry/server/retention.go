package server

import (
	"context"
	"time"
)

// forget forgets what settled calls carried beyond what the retention
// options keep (Config.ResultRetention, Config.ForgetPayloads), at every
// maintenance pass; the store resumes where it stopped, so a pass costs
// the calls settled since the last one.
func (s *Service) forget(ctx context.Context, now time.Time) {
	var results, payloads time.Time
	if s.cfg.ResultRetention < s.cfg.Retention {
		results = now.Add(-s.cfg.ResultRetention)
	}
	if s.cfg.ForgetPayloads {
		payloads = now
	}
	if results.IsZero() && payloads.IsZero() {
		return
	}
	if n, err := s.store.ForgetSettled(ctx, results, payloads); err != nil {
		s.log.Error("registry: forget settled results and payloads", "err", err)
	} else if n > 0 {
		s.log.Debug("registry: forgot settled results and payloads", "count", n)
	}
}
