package httpguard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReadBodyBoundsSizeAndSlots(t *testing.T) {
	slots := NewBodySlots(1)
	req := func(body string) *http.Request {
		return httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	}
	if body, p, err := slots.ReadBody(httptest.NewRecorder(), req(`{"a":1}`), 64); p != 0 || err != nil || string(body) != `{"a":1}` {
		t.Fatalf("a small body: %q %v %v", body, p, err)
	}
	if _, p, _ := slots.ReadBody(httptest.NewRecorder(), req(strings.Repeat("x", 65)), 64); p != BodyTooLarge || p.Status() != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body over the limit: %v", p)
	}
	slots.slots <- struct{}{} // another body is being read
	if _, p, _ := slots.ReadBody(httptest.NewRecorder(), req(`{}`), 64); p != BodyBusy || p.Status() != http.StatusTooManyRequests {
		t.Fatalf("with every slot taken: %v", p)
	}
	<-slots.slots
	if _, p, _ := NewBodySlots(0).ReadBody(httptest.NewRecorder(), req(`{}`), 64); p != 0 || NewBodySlots(0).Cap() != 0 {
		t.Fatalf("unbounded slots refused a body: %v", p)
	}
}
