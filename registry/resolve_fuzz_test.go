package registry

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/quiver-go/quiver/tools/contract"
)

// FuzzDecodeResolution feeds resolve answers — what a consumer reads from
// a registry, outside its control — to the decoder and then to the
// compiler the runtime runs on them: neither may panic, and a decoded
// resolution names every toolset with its fingerprint, revision and token.
//
//	go test -run x -fuzz FuzzDecodeResolution ./registry
func FuzzDecodeResolution(f *testing.F) {
	f.Add([]byte(`{"catalog_revision":3,"toolsets":[{"name":"echo","fingerprint":"sha256:aa","revision":"r1","token":"qrt1_x","declaration":{"name":"echo","tools":[{"name":"say","title":"Say","input_schema":{"type":"object","properties":{"text":{"type":"string"}}}}]}}]}`))
	f.Add([]byte(`{"catalog_revision":0,"toolsets":[]}`))
	f.Add([]byte(`{"catalog_revision":1,"toolsets":[{"name":"b","fingerprint":"f","revision":"r","token":"t","declaration":{"name":"b","tools":[{"name":"x","title":"X","input_schema":{"type":"object"},"bounds":{"continue_with":"y"}}]}}]}`))
	f.Add([]byte(`{"catalog_revision":1,"toolsets":[{"name":"n","fingerprint":"f","revision":"r","token":"t","declaration":null}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := decodeResolution(&http.Response{Body: io.NopCloser(bytes.NewReader(body))})
		if err != nil {
			return
		}
		for _, ts := range res.Toolsets {
			if ts.Name == "" || ts.Fingerprint == "" || ts.Revision == "" || ts.Token == "" {
				t.Fatalf("decoded a toolset without its identity: %+v", ts)
			}
			decl := ts.Declaration
			decl.Name = ts.Name
			_, _ = contract.CompileToolset(decl)
			_, _ = contract.Fingerprint(decl)
		}
	})
}
