package localapi

import (
	"encoding/json"
	"net/http"

	"lnk.dev/sandbox/app/apitype"
)

func (h *Handler) questions(w http.ResponseWriter, r *http.Request) {
	qs := h.b.Questions(r.Context())
	if qs == nil {
		qs = []apitype.Question{}
	}
	writeJSON(w, qs)
}

// watchQuestions streams QuestionEvent lines until the client goes away.
func (h *Handler) watchQuestions(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/jsonl")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	if fl != nil {
		fl.Flush()
	}
	enc := json.NewEncoder(w)
	err := h.b.WatchQuestions(r.Context(), r.URL.Query().Get("terminal"), func(e *apitype.QuestionEvent) error {
		if err := enc.Encode(e); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		return nil
	})
	if err != nil && r.Context().Err() == nil {
		enc.Encode(&apitype.QuestionEvent{Error: err.Error()})
	}
}

func (h *Handler) answer(w http.ResponseWriter, r *http.Request) {
	var req apitype.AnswerRequest
	if !readJSON(w, r, &req) {
		return
	}
	switch req.Choice {
	case apitype.ChoiceAllow, apitype.ChoiceAlways, apitype.ChoiceDeny:
	default:
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.CodeBadRequest, "answer "+req.ID+": the choice is allow, always or deny"))
		return
	}
	if req.ID == "" {
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.CodeBadRequest, "answer: name the question (its id from `lnk sandbox answer`)"))
		return
	}
	if err := h.b.Answer(r.Context(), &req); err != nil {
		writeError(w, 0, err)
		return
	}
	writeJSON(w, &apitype.IDsResponse{IDs: []string{req.ID}})
}

func (h *Handler) remembered(w http.ResponseWriter, r *http.Request) {
	l := h.b.Remembered(r.Context())
	if l == nil {
		l = []apitype.Remembered{}
	}
	writeJSON(w, l)
}

func (h *Handler) forget(w http.ResponseWriter, r *http.Request) {
	var req apitype.ForgetRequest
	if !readJSON(w, r, &req) {
		return
	}
	if !req.All && req.Spec == "" && req.Folder == "" && req.Key == "" {
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.CodeBadRequest, "forget: say which answers (a spec, a folder, a key) or all"))
		return
	}
	n, err := h.b.Forget(r.Context(), &req)
	if err != nil {
		writeError(w, 0, err)
		return
	}
	writeJSON(w, &apitype.ForgetResponse{Forgotten: n})
}
