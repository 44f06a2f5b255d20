package registry

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// DefaultAPIVersion is the path segment of the registry API's routes
// (/v1/...) when [WithAPIVersion] does not change it.
const DefaultAPIVersion = "v1"

// WithTimeout bounds each request, from sending it to reading its answer,
// to d; zero leaves requests unbounded (the default). It bounds every
// request but the provider's call stream ([Client.Calls]), which lasts as
// long as its lease. A long poll (Changes' wait_ms) and a call waiting for
// its outcome (CallResolvedTool's timeout_ms) must fit in it. Under
// [WithRetry] each attempt has its own d.
func WithTimeout(d time.Duration) ClientOption {
	return func(c *clientConfig) error {
		if d < 0 {
			return fmt.Errorf("registry: WithTimeout(%s): a timeout is positive, or zero for none", d)
		}
		c.timeout = d
		return nil
	}
}

// WithRetry retries a request that failed without an answer from the
// registry (a transport error, a timeout) or with 502, 503 or 504 from
// something in front of it, or with the registry's unavailable (503) or
// overloaded (429): up to maxRetries times, waiting backoff before the
// first retry and twice as long before each next one, for as long as the
// request's context lasts. Only requests safe to repeat are retried:
// reads (GET), and CallResolvedTool, which its call id makes idempotent.
// The registry's outcome_unknown (502) is an answer and is not retried.
// maxRetries zero disables retries (the default).
func WithRetry(maxRetries int, backoff time.Duration) ClientOption {
	return func(c *clientConfig) error {
		if maxRetries < 0 {
			return fmt.Errorf("registry: WithRetry(%d, %s): maxRetries is 0 or more", maxRetries, backoff)
		}
		if backoff < 0 || (maxRetries > 0 && backoff == 0) {
			return fmt.Errorf("registry: WithRetry(%d, %s): the backoff is a positive duration such as 500ms", maxRetries, backoff)
		}
		c.retries, c.backoff = maxRetries, backoff
		return nil
	}
}

// WithAPIVersion sends requests under the API version v, one path segment
// such as "v2": the client's routes /v1/... become /<v>/... (after the base
// URL's path). [DefaultAPIVersion] when not given.
func WithAPIVersion(v string) ClientOption {
	return func(c *clientConfig) error {
		if !isPathSegment(v) {
			return fmt.Errorf("registry: WithAPIVersion(%q): an API version is one path segment of letters, digits, '-', '.', '_' or '~', such as %q", v, DefaultAPIVersion)
		}
		c.apiVersion = v
		return nil
	}
}

// isPathSegment reports whether s is a non-empty path segment of
// unreserved characters (RFC 3986), other than "." and "..".
func isPathSegment(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("-._~", r):
		default:
			return false
		}
	}
	return true
}

// WithFederation selects the toolsets the client imports with glob
// patterns ([path.Match] syntax) on their names: a toolset is imported when
// it matches one of include (every toolset when include is empty) and
// none of exclude. [Client.Resolve] of the whole registry leaves out the
// toolsets not imported; Resolve naming one fails with
// [ErrExcludedByFederation].
// A later WithFederation replaces an earlier one.
func WithFederation(include, exclude []string) ClientOption {
	return func(c *clientConfig) error {
		for _, p := range slices.Concat(include, exclude) {
			if strings.TrimSpace(p) == "" {
				return fmt.Errorf("registry: WithFederation: an empty pattern: write a glob such as \"data-*\"")
			}
			if _, err := path.Match(p, ""); err != nil {
				return fmt.Errorf("registry: WithFederation: %q is not a glob pattern (path.Match syntax, such as \"data-*\"): %w", p, err)
			}
		}
		c.consumer.Include, c.consumer.Exclude = slices.Clone(include), slices.Clone(exclude)
		return nil
	}
}

// WithSyncInterval sets [ConsumerSettings.SyncInterval]: a consumer (the
// runtime) refreshes its resolution in the background every d. Zero: no
// background refresh (the default).
func WithSyncInterval(d time.Duration) ClientOption {
	return func(c *clientConfig) error {
		if d < 0 {
			return fmt.Errorf("registry: WithSyncInterval(%s): an interval is positive, or zero for no background refresh", d)
		}
		c.consumer.SyncInterval = d
		return nil
	}
}

// WithCacheTTL sets [ConsumerSettings.CacheTTL]: a consumer may keep serving
// its last resolution for d after its last successful read, only while
// the registry is unreachable. Zero: never (the default).
func WithCacheTTL(d time.Duration) ClientOption {
	return func(c *clientConfig) error {
		if d < 0 {
			return fmt.Errorf("registry: WithCacheTTL(%s): a TTL is positive, or zero to serve nothing stale", d)
		}
		c.consumer.CacheTTL = d
		return nil
	}
}

// federationVerdict says why the consumer's federation does not import
// the toolset name: "" when it does.
func (s ConsumerSettings) federationVerdict(name string) string {
	if len(s.Include) > 0 && !slices.ContainsFunc(s.Include, func(p string) bool { return globMatch(p, name) }) {
		return fmt.Sprintf("matches none of the Include patterns %q", s.Include)
	}
	for _, p := range s.Exclude {
		if globMatch(p, name) {
			return fmt.Sprintf("matches the Exclude pattern %q", p)
		}
	}
	return ""
}

// globMatch matches name against a pattern WithFederation validated.
func globMatch(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}
