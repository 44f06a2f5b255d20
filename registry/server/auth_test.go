package server_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/registry/internal/registrytest"
	"github.com/quiver-go/quiver/registry/server"
)

func TestProbeAuth(t *testing.T) {
	keys, err := server.ParseKeys([]byte(`{"keys":[
 {"name":"prov","key":"provider-key-0123456789","role":"provider","toolsets":["echo*"]},
 {"name":"cons","key":"consumer-key-0123456789","role":"consumer"},
 {"name":"root","key":"admin-key-0123456789abc","role":"admin"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := registrytest.Start(t, registrytest.Options{Keys: keys, LeaseTTL: time.Minute})
	admin := r.Client(t, "admin-key-0123456789abc")
	cons := r.Client(t, "consumer-key-0123456789")
	p := registrytest.Register(t, admin, registrytest.Echo("other"), "r1", 4, true)
	ch := async(cons, "other", "echo", p.Lease.Token, "c1", `{"text":"s3cret"}`, 10*time.Second)
	f := <-p.Frames
	if _, err := p.Post(*f.CallID, `{"text":"s3cret"}`, ""); err != nil {
		t.Fatal(err)
	}
	fmt.Println(<-ch)
	for _, key := range []string{"provider-key-0123456789", "consumer-key-0123456789"} {
		req, _ := http.NewRequest("POST", r.URL+"/v1/calls/c1/result", strings.NewReader(`{"lease_id":"lease_gone","result":{"text":"forged"}}`))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		fmt.Println(key, resp.StatusCode, string(b))
	}
}
