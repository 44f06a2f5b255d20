package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/quiver-go/quiver/internal/httpguard"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// frontDoor is what every request meets before the API sees it, in this
// order, none of which reads the body:
//
//  1. the route: a method and path the API serves (404 otherwise), each
//     path parameter a single segment within its rule (400);
//  2. on a registry without keys, a Host naming the loopback interface
//     (403) — a keyed registry may be reached by any name;
//  3. no cross-origin browser request (403), and a body declared
//     application/json (415);
//  4. the key — Bearer <key> or the bare key, no other scheme — (401) and
//     the route's role (403), so that no answer says whether a lease, a
//     toolset or a call exists to a caller whose role may not ask;
//
// and only then the body, read whole under the route's size limit (413),
// within BodyTimeout (408), while fewer than MaxReadingBodies others are
// being read (429 overloaded, Retry-After).
//
// The keys are read once per request (Service.SetKeys may replace them
// meanwhile): the request is checked against one set, old or new.
//
// A request with a body gets a read deadline before anything else, so that
// one the door refuses — whose body net/http drains up to 256 KiB — cannot
// hold its connection by sending slowly. The deadline is cleared once the
// body is read: provider streams and calls waiting for their outcome last
// longer than any body deadline.
func (s *Service) frontDoor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if httpguard.HasBody(r) {
			_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
		}
		rt, segs, ok := match(r.Method, r.URL.EscapedPath())
		if !ok {
			// Not an API error (no goa-error header): clients tell a route
			// nothing serves from a resource that does not exist.
			writeError(w, http.StatusNotFound, gen.MakeNotFound(fmt.Errorf("the registry serves no %s %s: its routes are in /openapi.json", r.Method, clipPath(r.URL.EscapedPath()))))
			return
		}
		params, err := pathParams(rt, segs)
		if err != nil {
			refuse(w, r, http.StatusBadRequest, gen.MakeBadRequest(err))
			return
		}
		keys := s.currentKeys()
		if !keys.Configured() {
			if err := httpguard.CheckHost(r); err != nil {
				refuse(w, r, http.StatusForbidden, gen.MakeForbidden(err))
				return
			}
		}
		if err := httpguard.CheckOrigin(r); err != nil {
			refuse(w, r, http.StatusForbidden, gen.MakeForbidden(err))
			return
		}
		if rt.body != noBody {
			if err := httpguard.CheckJSONBody(r); err != nil {
				refuse(w, r, http.StatusUnsupportedMediaType, gen.MakeBadRequest(err))
				return
			}
		}
		p, err := authenticate(keys, r.Header.Get("Authorization"))
		switch {
		case rt.access == open:
			// The probes and the document answer anyone; /readyz says more
			// to an admin key.
		case err != nil:
			w.Header().Set("WWW-Authenticate", `Bearer realm="quiver-registry"`)
			refuse(w, r, http.StatusUnauthorized, err)
			return
		default:
			if err := allowed(p, rt, params); err != nil {
				refuse(w, r, http.StatusForbidden, err)
				return
			}
		}
		ctx := r.Context()
		if err == nil {
			ctx = context.WithValue(ctx, principalKey{}, p)
		}
		r = r.WithContext(ctx)
		if rt.body == noBody || !httpguard.HasBody(r) {
			// A body on a route that takes none is not read (net/http
			// drains a little of it, under the deadline); one declared
			// over the limit is refused.
			if r.ContentLength > s.cfg.MaxBodyBytes {
				refuse(w, r, http.StatusRequestEntityTooLarge, gen.MakePayloadTooLarge(errors.New(tooLargeMessage(s.cfg.MaxBodyBytes))))
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		body, status, err := s.readBody(w, r, s.limitOf(rt.body))
		if err != nil {
			if status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "1")
			}
			refuse(w, r, status, err)
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// limitOf is a route's body limit in bytes.
func (s *Service) limitOf(b bodyLimit) int64 {
	if b == callBody {
		return s.cfg.MaxPayloadBytes + callEnvelopeBytes
	}
	return s.cfg.MaxBodyBytes
}

// readBody reads a request's body whole, under limit, while a slot of
// MaxReadingBodies is free.
func (s *Service) readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, int, error) {
	body, problem, err := s.reading.ReadBody(w, r, limit)
	switch problem {
	case 0:
		return body, 0, nil
	case httpguard.BodyTooLarge:
		return nil, problem.Status(), gen.MakePayloadTooLarge(errors.New(tooLargeMessage(limit)))
	case httpguard.BodyBusy:
		return nil, problem.Status(), gen.MakeOverloaded(fmt.Errorf("the registry is reading %d request bodies already: retry in a second (with the same call id, for a call)", s.reading.Cap()))
	case httpguard.BodySlow:
		return nil, problem.Status(), gen.MakeBadRequest(fmt.Errorf("the request body did not arrive within %s: send it at once", s.cfg.BodyTimeout))
	}
	return nil, problem.Status(), gen.MakeBadRequest(fmt.Errorf("reading the request body: %w", err))
}

// pathParams unescapes a route's path parameters and checks each: call ids
// follow registry.CallIDRule; other names are at most 256 bytes with no
// '/' or control character.
func pathParams(rt apiRoute, segs []string) ([]string, error) {
	var out []string
	for i, w := range rt.segments {
		if w != "{}" {
			out = append(out, "")
			continue
		}
		v, err := url.PathUnescape(segs[i])
		if err != nil {
			return nil, fmt.Errorf("path segment %s is not a valid escape: %w", registry.EchoID(segs[i]), err)
		}
		if segs[i-1] == "calls" {
			if err := registry.CheckCallID(v); err != nil {
				return nil, err
			}
		} else if len(v) > registry.MaxCallIDLength || strings.ContainsFunc(v, func(r rune) bool { return r == '/' || r < ' ' || r == 0x7f }) || v == "." || v == ".." {
			return nil, fmt.Errorf("path parameter %s is over %d bytes or holds '/' or a control character", registry.EchoID(v), registry.MaxCallIDLength)
		}
		out = append(out, v)
	}
	return out, nil
}

// authenticate reads the request's key: "Bearer <key>" or the bare key, as
// docs/registry.md documents, and finds it in keys; any other scheme is
// refused. Without keys configured every caller is admin.
func authenticate(keys *Keys, header string) (Principal, error) {
	if !keys.Configured() {
		return Principal{Role: RoleAdmin}, nil
	}
	key := header
	if scheme, rest, ok := strings.Cut(header, " "); ok {
		if !strings.EqualFold(scheme, "Bearer") {
			return Principal{}, gen.MakeUnauthorized(fmt.Errorf("the Authorization header uses scheme %q: send the key as Authorization: Bearer <key>", clipPath(scheme)))
		}
		key = strings.TrimLeft(rest, " ")
	}
	if key == "" {
		return Principal{}, gen.MakeUnauthorized(errors.New("the request carries no API key: send it as Authorization: Bearer <key>"))
	}
	p, ok := keys.Lookup(key)
	if !ok {
		return Principal{}, gen.MakeUnauthorized(errors.New("the API key is not in the registry's keys file"))
	}
	return p, nil
}

// allowed checks a principal's role against a route, and a provider's
// globs against a toolset named in the path.
func allowed(p Principal, rt apiRoute, params []string) error {
	switch rt.access {
	case consume:
		if !p.MayConsume() {
			return gen.MakeForbidden(fmt.Errorf("key %q has role %q: reading the catalog and calling tools needs a consumer or admin key", p.Name, p.Role))
		}
	case publish:
		if p.Role != RoleProvider && p.Role != RoleAdmin {
			return gen.MakeForbidden(fmt.Errorf("key %q has role %q: publishing toolsets needs a provider or admin key", p.Name, p.Role))
		}
		if rt.nameParam >= 0 && !p.MayPublish(params[rt.nameParam]) {
			return gen.MakeForbidden(fmt.Errorf("provider key %q may publish only toolsets matching %q, not %s", p.Name, p.Toolsets, registry.EchoID(params[rt.nameParam])))
		}
	}
	return nil
}

// refuse answers a request the front door stops, as the API answers its
// errors (the error body and its goa-error header).
//
// A refused request whose body is still unread closes its connection:
// net/http then drains at most 256 KiB of it (under the body deadline),
// where keeping the connection would read up to twice that first.
func refuse(w http.ResponseWriter, r *http.Request, status int, err error) {
	if httpguard.HasBody(r) {
		w.Header().Set("Connection", "close")
	}
	var se interface{ GoaErrorName() string }
	if errors.As(err, &se) {
		w.Header().Set("goa-error", se.GoaErrorName())
	}
	writeError(w, status, err)
}

// clipPath bounds what an error repeats of a request's path or header.
func clipPath(p string) string {
	if len(p) <= 64 {
		return p
	}
	return p[:64] + "…"
}
