package localapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/spec"
)

// fake is a hand-written Backend.
type fake struct {
	wrapped *apitype.WrapRequest
	paused  string
}

func (f *fake) Status(context.Context) *apitype.Status { return &apitype.Status{Version: "test"} }
func (f *fake) Wrap(_ context.Context, r *apitype.WrapRequest) (*apitype.WrapResponse, error) {
	f.wrapped = r
	return &apitype.WrapResponse{ID: "abc", Argv: []string{"bwrap"}}, nil
}
func (f *fake) List(context.Context) []apitype.Sandbox { return nil }
func (f *fake) Stop(_ context.Context, r *apitype.IDRequest) ([]string, error) {
	if r.ID == "missing" {
		return nil, apitype.Errorf(apitype.CodeNotFound, "no sandbox")
	}
	return []string{r.ID}, nil
}
func (f *fake) Pause(_ context.Context, id string) error {
	if id == "nowall" {
		return apitype.Errorf(apitype.CodeUnavailable, "bwrap not found: install the bubblewrap package")
	}
	f.paused = id
	return nil
}
func (f *fake) Resume(context.Context, string) error {
	return apitype.Errorf(apitype.CodeConflict, "not paused")
}
func (f *fake) Log(_ context.Context, sb string, _ bool, fn func(*apitype.LogRecord) error) error {
	fn(&apitype.LogRecord{Sandbox: "a", Host: "x.com", Decision: "deny"})
	return errors.New("broken")
}

func TestRoutesSorted(t *testing.T) {
	if !sort.SliceIsSorted(Routes, func(i, j int) bool { return Routes[i].Path < Routes[j].Path }) {
		t.Error("Routes is not sorted by path: ServeHTTP's binary search would miss routes")
	}
	for _, r := range Routes {
		if !strings.HasPrefix(r.Path, "/v0/") {
			t.Errorf("route %s is not under /v0/", r.Path)
		}
	}
}

func do(h http.Handler, method, path, body string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://"+apitype.Host+path, strings.NewReader(body))
	req.Host = apitype.Host
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestRefusals(t *testing.T) {
	h := NewHandler(&fake{})
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"plain", nil, 200},
		{"origin", map[string]string{"Origin": "http://evil.example"}, 403},
		{"referer", map[string]string{"Referer": "http://evil.example/"}, 403},
		{"host", map[string]string{"Host": "localhost"}, 403},
		{"host with port", map[string]string{"Host": apitype.Host + ":80"}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := do(h, "GET", apitype.PathStatus, "", tc.hdr)
			if w.Code != tc.want {
				t.Errorf("status %d, want %d: %s", w.Code, tc.want, w.Body)
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	f := &fake{}
	h := NewHandler(f)
	pol, _ := json.Marshal(&spec.Policy{Folder: "/x"})
	for _, tc := range []struct {
		method, path, body string
		want               int
		contains           string
	}{
		{"GET", apitype.PathStatus, "", 200, `"version":"test"`},
		{"GET", apitype.PathList, "", 200, `[]`},
		{"POST", apitype.PathStatus, "{}", 405, "use GET"},
		{"GET", "/v0/nosuch", "", 404, "no route"},
		{"GET", "/", "", 404, "no route"},
		{"POST", apitype.PathWrap, `{"argv":["true"],"policy":` + string(pol) + `}`, 200, `"id":"abc"`},
		{"POST", apitype.PathWrap, `{"argv":[]}`, 400, "policy and a command"},
		{"POST", apitype.PathWrap, `{`, 400, "bad request body"},
		{"POST", apitype.PathStop, `{"id":"x"}`, 200, `"ids":["x"]`},
		{"POST", apitype.PathStop, `{}`, 400, "name one sandbox or all"},
		{"POST", apitype.PathStop, `{"id":"x","all":true}`, 400, "name one"},
		{"POST", apitype.PathStop, `{"id":"missing"}`, 404, `"code":"not_found"`},
		{"POST", apitype.PathPause, `{"id":"p"}`, 200, `"ids":["p"]`},
		{"POST", apitype.PathResume, `{"id":"p"}`, 409, `"code":"conflict"`},
		{"POST", apitype.PathPause, `{"id":"nowall"}`, 503, `"code":"unavailable"`},
		{"GET", apitype.PathLog, "", 200, `"error":"log: broken"`},
	} {
		t.Run(tc.method+tc.path, func(t *testing.T) {
			w := do(h, tc.method, tc.path, tc.body, nil)
			if w.Code != tc.want || !strings.Contains(w.Body.String(), tc.contains) {
				t.Errorf("%d %s, want %d containing %s", w.Code, w.Body, tc.want, tc.contains)
			}
		})
	}
	if f.wrapped == nil || f.wrapped.Policy.Folder != "/x" || f.paused != "p" {
		t.Errorf("backend saw wrap %+v pause %q", f.wrapped, f.paused)
	}
}

func TestPostNeedsJSON(t *testing.T) {
	h := NewHandler(&fake{})
	req := httptest.NewRequest("POST", "http://"+apitype.Host+apitype.PathStop, strings.NewReader(`{"id":"x"}`))
	req.Header.Set("Content-Type", "text/plain")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusUnsupportedMediaType {
		t.Errorf("a text/plain POST got %d", w.Code)
	}
}

func FuzzServe(f *testing.F) {
	f.Add("POST", apitype.PathWrap, `{"argv":["a"],"policy":{"Folder":"/"}}`)
	f.Add("POST", apitype.PathStop, `{"id":"x","all":false}`)
	f.Add("GET", apitype.PathLog+"?follow=1&sandbox=x", "")
	f.Fuzz(func(t *testing.T, method, path, body string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n#") || method == "" || strings.ContainsAny(method, " \r\n") {
			return
		}
		req, err := http.NewRequest(method, "http://"+apitype.Host+path, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		NewHandler(&fake{}).ServeHTTP(w, req)
		if w.Code == 0 {
			t.Fatal("no status")
		}
	})
}

func (f *fake) Questions(context.Context) []apitype.Question { return nil }
func (f *fake) WatchQuestions(context.Context, string, func(*apitype.QuestionEvent) error) error {
	return nil
}
func (f *fake) Answer(_ context.Context, r *apitype.AnswerRequest) error {
	if r.ID != "q1" {
		return apitype.Errorf(apitype.CodeNotFound, "no such question")
	}
	return nil
}
func (f *fake) Remembered(context.Context) []apitype.Remembered { return nil }
func (f *fake) Forget(context.Context, *apitype.ForgetRequest) (int, error) {
	return 0, nil
}
