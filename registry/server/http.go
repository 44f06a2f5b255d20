package server

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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
	srv := genserver.New(s.audited(gen.NewEndpoints(s)), mux, strictDecoder, goahttp.ResponseEncoder, s.errorHandler, formatError)
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
			// What failed (a store's address, say) is for an admin key only.
			msg := "not ready"
			if p, ok := r.Context().Value(principalKey{}).(Principal); ok && p.Role == RoleAdmin {
				msg = err.Error()
			}
			http.Error(w, msg, http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	return s.frontDoor(trackWrites(mux))
}

//go:generate cp ../gen/http/openapi3.json openapi3.json

//go:embed openapi3.json
var openapi []byte

// OpenAPI returns the API's OpenAPI 3 document, as goa gen wrote it.
func OpenAPI() []byte { return openapi }

func (s *Service) errorHandler(ctx context.Context, _ http.ResponseWriter, err error) {
	s.log.Error("registry: writing a response failed", "err", err)
}

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

// trackWrites lets the provider stream see the write errors of its
// response (streamWriter).
func trackWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &streamState{ResponseWriter: w}
		next.ServeHTTP(tw, r.WithContext(context.WithValue(r.Context(), streamStateKey{}, tw)))
	})
}

func tooLargeMessage(max int64) string {
	return "the request body is over the registry's limit of " + boundedinput.FormatSize(max) + ": send a smaller payload"
}

// strictDecoder decodes request bodies exactly: object keys match the
// API's field names exactly (no case folding), duplicate keys, unknown
// fields, invalid UTF-8 and anything after the value are refused, and the
// API's free-form values (a call's payload, a registration's toolset, a
// posted result) are kept as the raw JSON sent — never decoded into maps,
// whose size a hostile body could multiply, and never re-encoded, which
// would hide a duplicate key from tools.CanonicalPayload.
func strictDecoder(r *http.Request) goahttp.Decoder { return exactBody{r.Body} }

type exactBody struct{ body io.Reader }

// exactOptions are strictDecoder's decoding options.
var exactOptions = jsonv2.JoinOptions(
	jsonv2.RejectUnknownMembers(true),
	// checkEnvelope refused duplicate fields; those inside free-form
	// values reach their readers.
	jsontext.AllowDuplicateNames(true),
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *any) error {
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if raw.Kind() == 'n' {
			*v = nil
			return nil
		}
		*v = json.RawMessage(raw.Clone())
		return nil
	})),
)

func (b exactBody) Decode(v any) error {
	data, err := io.ReadAll(b.body)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return io.EOF
	}
	if err := checkEnvelope(data); err != nil {
		return err
	}
	return explainDecode(jsonv2.Unmarshal(data, v, exactOptions))
}

// checkEnvelope checks that data is one JSON value and, when it is an
// object, that it names each field once. Duplicates inside the free-form
// values are left to whoever reads them: a call's payload goes whole to
// tools.CanonicalPayload, which refuses them as a validation error naming
// their path.
func checkEnvelope(data []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	if dec.PeekKind() == '{' {
		if _, err := dec.ReadToken(); err != nil {
			return explainDecode(err)
		}
		seen := map[string]bool{}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return explainDecode(err)
			}
			if seen[name.String()] {
				return fmt.Errorf("field %q is named twice: name each field once", name.String())
			}
			seen[name.String()] = true
			if err := dec.SkipValue(); err != nil {
				return explainDecode(err)
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return explainDecode(err)
		}
	} else if err := dec.SkipValue(); err != nil {
		return explainDecode(err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return errors.New("the request body holds more than one JSON value: send exactly one JSON object")
	}
	return nil
}

// kindName names a JSON kind for an error message.
func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "that value"
}

// explainDecode says which field of a request body is wrong and how, in
// the API's field names.
func explainDecode(err error) error {
	if err == nil {
		return nil
	}
	field := func(p jsontext.Pointer) string {
		if p == "" {
			return "the request body"
		}
		return fmt.Sprintf("field %q", strings.TrimPrefix(string(p), "/"))
	}
	var se *jsonv2.SemanticError
	if errors.As(err, &se) {
		switch {
		case errors.Is(se.Err, jsonv2.ErrUnknownName):
			return fmt.Errorf("unknown field %q: the API defines no such field (names are case-sensitive)", strings.TrimPrefix(string(se.JSONPointer), "/"))
		case se.JSONPointer == "" && se.JSONKind != 0:
			return fmt.Errorf("the request body must be a JSON object, not %s", kindName(se.JSONKind))
		case se.JSONKind != 0:
			return fmt.Errorf("%s cannot be %s: see the API's OpenAPI document for its type", field(se.JSONPointer), kindName(se.JSONKind))
		}
		return fmt.Errorf("%s: %w", field(se.JSONPointer), se.Err)
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		if errors.Is(syn.Err, jsontext.ErrDuplicateName) {
			return fmt.Errorf("%s is named twice: name each field once", field(syn.JSONPointer))
		}
		return fmt.Errorf("malformed JSON at byte %d: %w", syn.ByteOffset, syn.Err)
	}
	return err
}

// statusError is an error response with its own status.
type statusError struct {
	*goahttp.ErrorResponse
	status int
}

func (e statusError) StatusCode() int { return e.status }

// formatError renders errors the design does not map: Goa's decoding and validation errors
// (decode_payload, missing_field, invalid_range…) are 400 bad_request with
// Goa's message, which names the field — one name for every malformed
// request, as docs/registry.md lists.
func formatError(ctx context.Context, err error) goahttp.Statuser {
	var se *goa.ServiceError
	if errors.As(err, &se) && goaRequestErrors[se.Name] {
		return statusError{goahttp.NewErrorResponse(ctx, gen.MakeBadRequest(errors.New(clipMessage(se.Message)))).(*goahttp.ErrorResponse), http.StatusBadRequest}
	}
	return goahttp.NewErrorResponse(ctx, err)
}

// clipMessage bounds a decoding error's message, which may quote what the
// request sent.
func clipMessage(m string) string {
	const max = 512
	if len(m) <= max {
		return m
	}
	return m[:max] + "…"
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
