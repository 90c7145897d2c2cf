package localapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"

	"lnk.dev/sandbox/app/apitype"
)

// MaxBody is the largest request body accepted.
const MaxBody = 8 << 20

// Backend is what the daemon provides to the routes.
type Backend interface {
	Status(ctx context.Context) *apitype.Status
	Wrap(ctx context.Context, r *apitype.WrapRequest) (*apitype.WrapResponse, error)
	List(ctx context.Context) []apitype.Sandbox
	Stop(ctx context.Context, r *apitype.IDRequest) ([]string, error)
	Pause(ctx context.Context, id string) error
	Resume(ctx context.Context, id string) error
	// Log calls fn for each log record of sandbox ("" = all), oldest
	// first; with follow it then waits for new ones until ctx ends.
	Log(ctx context.Context, sandbox string, follow bool, fn func(*apitype.LogRecord) error) error
	// Questions lists the questions waiting for the person.
	Questions(ctx context.Context) []apitype.Question
	// WatchQuestions calls fn for every waiting question and then every
	// change, until ctx ends. terminalFor names a sandbox whose terminal
	// this is: then only its questions come, with their codes.
	WatchQuestions(ctx context.Context, terminalFor string, fn func(*apitype.QuestionEvent) error) error
	// Answer answers a waiting question.
	Answer(ctx context.Context, r *apitype.AnswerRequest) error
	// Remembered lists the "always" answers; Forget drops some.
	Remembered(ctx context.Context) []apitype.Remembered
	Forget(ctx context.Context, r *apitype.ForgetRequest) (int, error)
}

// Route is one entry of the route table.
type Route struct {
	Method string
	Path   string
	serve  func(h *Handler, w http.ResponseWriter, r *http.Request)
}

// Routes is the route table, sorted by path (a test checks it).
var Routes = []Route{
	{http.MethodPost, apitype.PathAnswer, (*Handler).answer},
	{http.MethodPost, apitype.PathForget, (*Handler).forget},
	{http.MethodGet, apitype.PathList, (*Handler).list},
	{http.MethodGet, apitype.PathLog, (*Handler).log},
	{http.MethodPost, apitype.PathPause, (*Handler).pause},
	{http.MethodGet, apitype.PathQuestions, (*Handler).questions},
	{http.MethodGet, apitype.PathQuestionsWatch, (*Handler).watchQuestions},
	{http.MethodGet, apitype.PathRemembered, (*Handler).remembered},
	{http.MethodPost, apitype.PathResume, (*Handler).resume},
	{http.MethodGet, apitype.PathStatus, (*Handler).status},
	{http.MethodPost, apitype.PathStop, (*Handler).stop},
	{http.MethodPost, apitype.PathWrap, (*Handler).wrap},
}

// Handler serves the control API.
type Handler struct {
	b Backend
}

// NewHandler returns the control API over b.
func NewHandler(b Backend) *Handler { return &Handler{b: b} }

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := refuse(r); msg != "" {
		writeError(w, http.StatusForbidden, apitype.Errorf(apitype.CodeDenied, msg))
		return
	}
	i := sort.Search(len(Routes), func(i int) bool { return Routes[i].Path >= r.URL.Path })
	if i == len(Routes) || Routes[i].Path != r.URL.Path {
		writeError(w, http.StatusNotFound, apitype.Errorf(apitype.CodeNotFound, "no route "+r.URL.Path+": update lnk (the CLI and the daemon differ?)"))
		return
	}
	rt := Routes[i]
	if r.Method != rt.Method {
		w.Header().Set("Allow", rt.Method)
		writeError(w, http.StatusMethodNotAllowed, apitype.Errorf(apitype.CodeBadRequest, r.Method+" "+r.URL.Path+": use "+rt.Method))
		return
	}
	if r.Method == http.MethodPost {
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if ct != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, apitype.Errorf(apitype.CodeBadRequest, "the body must be application/json"))
			return
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	rt.serve(h, w, r)
}

// refuse says why a request may not reach any route, or "".
func refuse(r *http.Request) string {
	switch {
	case r.Header.Get("Origin") != "":
		return "requests with an Origin header are refused"
	case r.Header.Get("Referer") != "":
		return "requests with a Referer header are refused"
	case r.Host != apitype.Host:
		return fmt.Sprintf("unknown Host %q", r.Host)
	}
	return ""
}

func (h *Handler) status(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, h.b.Status(r.Context()))
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	l := h.b.List(r.Context())
	if l == nil {
		l = []apitype.Sandbox{}
	}
	writeJSON(w, l)
}

func (h *Handler) wrap(w http.ResponseWriter, r *http.Request) {
	var req apitype.WrapRequest
	if !readJSON(w, r, &req) {
		return
	}
	if req.Policy == nil || len(req.Argv) == 0 {
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.CodeBadRequest, "wrap: a policy and a command are required"))
		return
	}
	resp, err := h.b.Wrap(r.Context(), &req)
	if err != nil {
		writeError(w, 0, err)
		return
	}
	writeJSON(w, resp)
}

func (h *Handler) stop(w http.ResponseWriter, r *http.Request) {
	var req apitype.IDRequest
	if !readJSON(w, r, &req) {
		return
	}
	if (req.ID == "") == !req.All {
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.CodeBadRequest, "stop: name one sandbox or all"))
		return
	}
	ids, err := h.b.Stop(r.Context(), &req)
	if err != nil {
		writeError(w, 0, err)
		return
	}
	writeJSON(w, &apitype.IDsResponse{IDs: nonNil(ids)})
}

func (h *Handler) pause(w http.ResponseWriter, r *http.Request) {
	h.one(w, r, h.b.Pause)
}

func (h *Handler) resume(w http.ResponseWriter, r *http.Request) {
	h.one(w, r, h.b.Resume)
}

func (h *Handler) one(w http.ResponseWriter, r *http.Request, fn func(context.Context, string) error) {
	var req apitype.IDRequest
	if !readJSON(w, r, &req) {
		return
	}
	if req.ID == "" || req.All {
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.CodeBadRequest, "name one sandbox"))
		return
	}
	if err := fn(r.Context(), req.ID); err != nil {
		writeError(w, 0, err)
		return
	}
	writeJSON(w, &apitype.IDsResponse{IDs: []string{req.ID}})
}

func (h *Handler) log(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	follow := q.Get("follow") == "1"
	w.Header().Set("Content-Type", "application/jsonl")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	err := h.b.Log(r.Context(), q.Get("sandbox"), follow, func(rec *apitype.LogRecord) error {
		if err := enc.Encode(rec); err != nil {
			return err
		}
		if follow && fl != nil {
			fl.Flush()
		}
		return nil
	})
	if err != nil {
		// The status is sent; say it in the stream as a record the client
		// knows how to spot.
		enc.Encode(&apitype.LogRecord{Error: "log: " + err.Error()})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.CodeBadRequest, "bad request body: "+err.Error()))
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// writeError answers err; status 0 picks it from err's code.
func writeError(w http.ResponseWriter, status int, err error) {
	code := apitype.CodeOf(err)
	if status == 0 {
		status = map[string]int{
			apitype.CodeNotFound:    http.StatusNotFound,
			apitype.CodeBadRequest:  http.StatusBadRequest,
			apitype.CodeConflict:    http.StatusConflict,
			apitype.CodeDenied:      http.StatusForbidden,
			apitype.CodeUnavailable: http.StatusServiceUnavailable,
		}[code]
		if status == 0 {
			status = http.StatusInternalServerError
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(&apitype.Error{Code: code, Message: err.Error()})
}
