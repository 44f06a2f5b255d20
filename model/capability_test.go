package model

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// silentClient declares nothing about search.
type silentClient struct{}

func (silentClient) Complete(context.Context, *Request) (*Response, error) {
	return nil, errors.New("not called")
}

func (silentClient) Stream(context.Context, *Request) (Streamer, error) {
	return nil, errors.New("not called")
}

// nativeClient searches natively.
type nativeClient struct{ silentClient }

func (nativeClient) SupportsSearch(s SearchSettings) error { return NativeSearch(s) }

func TestCheckSearchNamesTheFix(t *testing.T) {
	for _, tc := range []struct {
		name   string
		client Client
		mode   SearchMode
		want   []string // empty: supported
	}{
		{"native client, native mode", nativeClient{}, SearchNative, nil},
		{"native client, portable mode", nativeClient{}, SearchPortable, []string{"portable.Wrap", "search_tools", "model.SearchNative"}},
		{"undeclared client, native mode", silentClient{}, SearchNative, []string{"model.silentClient declares no native tool search", "portable.Wrap", "model.SearchPortable", "model/openai"}},
		{"undeclared client, portable mode", silentClient{}, SearchPortable, []string{"portable.Wrap"}},
		{"unknown mode", nativeClient{}, "hosted", []string{`unknown search mode "hosted"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckSearch(tc.client, SearchSettings{Mode: tc.mode})
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrToolSearchUnsupported) {
				t.Fatalf("err = %v, want ErrToolSearchUnsupported", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestResolveModel(t *testing.T) {
	classes := map[ModelClass]string{ModelClassSmall: "mini"}
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{Model: "pinned", Class: ModelClassSmall}, "pinned"},
		{Request{Class: ModelClassSmall}, "mini"},
		{Request{}, "fallback"},
	} {
		if got, err := ResolveModel(&tc.req, classes, "fallback"); err != nil || got != tc.want {
			t.Errorf("ResolveModel(%+v) = %q, %v; want %q", tc.req, got, err, tc.want)
		}
	}
	_, err := ResolveModel(&Request{Class: ModelClassHighReasoning}, classes, "")
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), `class "high-reasoning"`) || !strings.Contains(err.Error(), "WithClassModel") {
		t.Fatalf("err = %v", err)
	}
}
