package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	goahttp "goa.design/goa/v3/http"

	genclient "github.com/quiver-go/quiver/registry/gen/http/registry/client"
)

// The client's requests go through three doers: retryDoer (WithRetry)
// around timeoutDoer (WithTimeout) around keyDoer, which every request,
// the provider's stream included, goes through.

// keyDoer sends a request to the registry's route: the API version in
// place of the generated routes' /v1, the base URL's path before it, and
// the API key. An answer that does not come from the registry's API (a
// 404 without a registry error) fails with a routeError.
type keyDoer struct {
	key     string
	prefix  string
	version string
	next    goahttp.Doer
}

func (d *keyDoer) Do(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	p := r.URL.Path
	if d.version != DefaultAPIVersion {
		if rest, ok := strings.CutPrefix(p, "/"+DefaultAPIVersion); ok && (rest == "" || rest[0] == '/') {
			p = "/" + d.version + rest
		}
	}
	if p = d.prefix + p; p != r.URL.Path {
		r.URL.Path, r.URL.RawPath = p, ""
	}
	if d.key != "" && r.Header.Get("Authorization") == "" {
		r.Header.Set("Authorization", "Bearer "+d.key)
	}
	resp, err := d.next.Do(r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound && resp.Header.Get("goa-error") == "" {
		drain(resp)
		return nil, &routeError{method: r.Method, path: r.URL.Path, status: resp.Status, version: d.version, prefix: d.prefix}
	}
	return resp, nil
}

// routeError is a 404 that no registry error explains: nothing serves the
// route the client sent the request to.
type routeError struct {
	method, path, status, version, prefix string
}

func (e *routeError) Error() string {
	base := "no path"
	if e.prefix != "" {
		base = fmt.Sprintf("path %q", e.prefix)
	}
	return fmt.Sprintf("registry: %s %s answered %s without a registry error: nothing serves this route. Check the API version (%q; WithAPIVersion, %q by default) and the base URL's path (%s) against the registry's", e.method, e.path, e.status, e.version, DefaultAPIVersion, base)
}

// timeoutDoer bounds a request, from sending it to the end of its answer's
// body, to timeout.
type timeoutDoer struct {
	timeout time.Duration
	next    goahttp.Doer
}

func (d *timeoutDoer) Do(r *http.Request) (*http.Response, error) {
	parent := r.Context()
	ctx, cancel := context.WithTimeout(parent, d.timeout)
	resp, err := d.next.Do(r.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, d.explain(r, parent, ctx, err)
	}
	resp.Body = &timedBody{ReadCloser: resp.Body, cancel: cancel, explain: func(err error) error { return d.explain(r, parent, ctx, err) }}
	return resp, nil
}

// explain says that err came from the timeout, when it did.
func (d *timeoutDoer) explain(r *http.Request, parent, ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
		return fmt.Errorf("registry: %s %s: no complete answer within %s (WithTimeout): %w", r.Method, r.URL.Path, d.timeout, err)
	}
	return err
}

// timedBody ends its request's timeout when it is closed.
type timedBody struct {
	io.ReadCloser
	cancel  context.CancelFunc
	explain func(error) error
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.explain(err)
	}
	return n, err
}

func (b *timedBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// retryDoer retries the requests safe to repeat (see WithRetry).
type retryDoer struct {
	retries int
	backoff time.Duration
	next    goahttp.Doer
}

func (d *retryDoer) Do(r *http.Request) (*http.Response, error) {
	if !repeatable(r) {
		return d.next.Do(r)
	}
	ctx := r.Context()
	wait := d.backoff
	for attempt := 0; ; attempt++ {
		try := r.Clone(ctx)
		if attempt > 0 && r.GetBody != nil {
			body, err := r.GetBody()
			if err != nil {
				return nil, fmt.Errorf("registry: %s %s: the body cannot be sent again: %w", r.Method, r.URL.Path, err)
			}
			try.Body = body
		}
		resp, err := d.next.Do(try)
		failure := worthRetrying(ctx, resp, err)
		if failure == "" || attempt == d.retries {
			return resp, err
		}
		pause := wait
		if resp != nil {
			pause = max(pause, retryAfter(resp))
			drain(resp)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("registry: %s %s: %s; the request ended before retry %d of %d: %w", r.Method, r.URL.Path, failure, attempt+1, d.retries, ctx.Err())
		case <-t.C:
		}
		if wait < time.Duration(1<<62) {
			wait *= 2
		}
	}
}

// repeatable reports whether r may be sent again: a read, or a call
// (CallResolvedTool, idempotent by its call id), with a body that can be
// replayed.
func repeatable(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost:
		if r.URL.Path != genclient.CallResolvedToolRegistryPath() {
			return false
		}
	default:
		return false
	}
	return r.Body == nil || r.Body == http.NoBody || r.GetBody != nil
}

// worthRetrying says what failed when an attempt is worth repeating: no
// answer (but for the caller's own cancellation and a route nothing
// serves), a gateway's 502, 503 or 504, or the registry's unavailable
// (503) or overloaded (429). "" when it is not.
func worthRetrying(ctx context.Context, resp *http.Response, err error) string {
	if err != nil {
		var re *routeError
		if ctx.Err() != nil || errors.As(err, &re) {
			return ""
		}
		return err.Error()
	}
	name := resp.Header.Get("goa-error")
	switch resp.StatusCode {
	case http.StatusBadGateway:
		if name != "" { // the registry's outcome_unknown: an answer
			return ""
		}
	case http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
	default:
		return ""
	}
	if name != "" {
		return fmt.Sprintf("answered %s (%s)", resp.Status, name)
	}
	return "answered " + resp.Status
}

// maxRetryAfter bounds the pause a Retry-After header may ask for.
const maxRetryAfter = 30 * time.Second

// retryAfter is the pause an answer's Retry-After header asks for, in
// seconds (the registry's overloaded answers carry one), at most
// maxRetryAfter; 0 without one.
func retryAfter(resp *http.Response) time.Duration {
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || secs <= 0 {
		return 0
	}
	return min(time.Duration(secs)*time.Second, maxRetryAfter)
}

// drain reads a little of a body being discarded, so that its connection
// can be reused, and closes it.
func drain(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
	_ = resp.Body.Close()
}
