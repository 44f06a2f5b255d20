package server

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	goahttp "goa.design/goa/v3/http"

	"github.com/quiver-go/quiver/internal/boundedinput"
	goa "goa.design/goa/v3/pkg"

	genserver "github.com/quiver-go/quiver/registry/gen/http/registry/server"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// Handler returns the registry's HTTP handler: the Goa-generated API under
// /v1, the OpenAPI document at /openapi.json, and the probes /healthz
// (the process serves) and /readyz (the store answers).
func (s *Service) Handler() http.Handler {
	mux := goahttp.NewMuxer()
	srv := genserver.New(gen.NewEndpoints(s), mux, strictDecoder, goahttp.ResponseEncoder, s.errorHandler, formatError)
	genserver.Mount(mux, srv)
	mux.Handle(http.MethodGet, "/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(OpenAPI())
	})
	mux.Handle(http.MethodGet, "/healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.Handle(http.MethodGet, "/readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := s.Ready(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	return limitBody(s.cfg.MaxBodyBytes, mux)
}

//go:generate cp ../gen/http/openapi3.json openapi3.json

//go:embed openapi3.json
var openapi []byte

// OpenAPI returns the API's OpenAPI 3 document, as goa gen wrote it.
func OpenAPI() []byte { return openapi }

func (s *Service) errorHandler(ctx context.Context, _ http.ResponseWriter, err error) {
	s.log.Error("registry: writing a response failed", "err", err)
}

// bodyState is shared between the body limiter and the error formatter:
// a decode error caused by the limit is answered 413, not 400.
type bodyState struct{ tooLarge bool }

type bodyStateKey struct{}

// streamState lets the provider stream see write errors that Goa's SSE
// writer drops.
type streamState struct {
	http.ResponseWriter
	mu  sync.Mutex
	bad error
}

type streamStateKey struct{}

func (w *streamState) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.record(err)
	return n, err
}

// FlushError flushes and records the error (http.ResponseController uses it).
func (w *streamState) FlushError() error {
	err := http.NewResponseController(w.ResponseWriter).Flush()
	w.record(err)
	return err
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *streamState) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *streamState) record(err error) {
	if err != nil {
		w.mu.Lock()
		if w.bad == nil {
			w.bad = err
		}
		w.mu.Unlock()
	}
}

func (w *streamState) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bad
}

// streamWriter returns the request's write tracker.
func streamWriter(ctx context.Context) *streamState {
	w, _ := ctx.Value(streamStateKey{}).(*streamState)
	return w
}

// limitBody refuses bodies over max with 413 and tracks write errors.
func limitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			writeError(w, http.StatusRequestEntityTooLarge, gen.MakePayloadTooLarge(errors.New(tooLargeMessage(max))))
			return
		}
		st := &bodyState{}
		ctx := context.WithValue(r.Context(), bodyStateKey{}, st)
		tw := &streamState{ResponseWriter: w}
		ctx = context.WithValue(ctx, streamStateKey{}, tw)
		if r.Body != nil {
			r.Body = &limitedBody{ReadCloser: http.MaxBytesReader(w, r.Body, max), st: st}
		}
		next.ServeHTTP(tw, r.WithContext(ctx))
	})
}

func tooLargeMessage(max int64) string {
	return "the request body is over the registry's limit of " + boundedinput.FormatSize(max) + ": send a smaller payload"
}

type limitedBody struct {
	io.ReadCloser
	st *bodyState
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		b.st.tooLarge = true
	}
	return n, err
}

// strictDecoder decodes request bodies keeping numbers as written and
// refusing fields the API does not define and anything after the value.
func strictDecoder(r *http.Request) goahttp.Decoder {
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	dec.DisallowUnknownFields()
	return oneValue{dec}
}

// oneValue decodes a body that holds exactly one JSON value.
type oneValue struct{ dec *json.Decoder }

func (o oneValue) Decode(v any) error {
	if err := o.dec.Decode(v); err != nil {
		return err
	}
	var extra json.RawMessage
	switch err := o.dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return fmt.Errorf("after the request's JSON value: %w", err)
	}
	return errors.New("the request body holds more than one JSON value")
}

// statusError is an error response with its own status.
type statusError struct {
	*goahttp.ErrorResponse
	status int
}

func (e statusError) StatusCode() int { return e.status }

// formatError renders errors the design does not map: a body over the
// limit is 413 payload_too_large; Goa's decoding and validation errors
// (decode_payload, missing_field, invalid_range…) are 400 bad_request with
// Goa's message, which names the field — one name for every malformed
// request, as docs/registry.md lists.
func formatError(ctx context.Context, err error) goahttp.Statuser {
	if st, ok := ctx.Value(bodyStateKey{}).(*bodyState); ok && st.tooLarge {
		return statusError{goahttp.NewErrorResponse(ctx, gen.MakePayloadTooLarge(errors.New("the request body is over the registry's limit: send a smaller payload"))).(*goahttp.ErrorResponse), http.StatusRequestEntityTooLarge}
	}
	var se *goa.ServiceError
	if errors.As(err, &se) && goaRequestErrors[se.Name] {
		return statusError{goahttp.NewErrorResponse(ctx, gen.MakeBadRequest(errors.New(se.Message))).(*goahttp.ErrorResponse), http.StatusBadRequest}
	}
	return goahttp.NewErrorResponse(ctx, err)
}

// goaRequestErrors are the names Goa gives a request it cannot decode or
// validate.
var goaRequestErrors = map[string]bool{
	goa.InvalidFieldType: true, goa.MissingField: true, goa.InvalidEnumValue: true, goa.InvalidFormat: true,
	goa.InvalidPattern: true, goa.InvalidRange: true, goa.InvalidLength: true, goa.DecodePayload: true,
	goa.MissingPayload: true,
}

func writeError(w http.ResponseWriter, status int, err error) {
	resp := goahttp.NewErrorResponse(context.Background(), err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}
