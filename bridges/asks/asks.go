package asks

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"lnk.dev/sandbox/bridges"
	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/spec"
)

// Route is the route the bridge serves.
const Route = "ask"

// maxBody bounds a question's request body.
const maxBody = 16 << 10

// Request is what a sandbox sends.
type Request struct {
	// Question is the question in the sandbox's words (required).
	Question string `json:"question"`
	// Details are further lines shown under it.
	Details []string `json:"details,omitempty"`
}

// Response is the bridge's answer.
type Response struct {
	Answer dialogs.Choice `json:"answer"`
	Via    string         `json:"via"`
	Reason string         `json:"reason,omitempty"`
}

// Bridge serves the ask route.
type Bridge struct {
	Asker *dialogs.Asker
}

// Register implements bridges.Bridge.
func (b *Bridge) Register(sb *bridges.Sandbox) {
	sb.Proxy.Handle(Route, spec.EndpointAsk, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.serve(sb, w, r)
	}))
}

func (b *Bridge) serve(sb *bridges.Sandbox, w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a JSON body {\"question\": \"...\"}", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		http.Error(w, "cannot read the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(body) > maxBody {
		http.Error(w, fmt.Sprintf("the question is over %d bytes: shorten it", maxBody), http.StatusRequestEntityTooLarge)
		return
	}
	var req Request
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || strings.TrimSpace(req.Question) == "" {
		http.Error(w, `send {"question": "...", "details": ["..."]} with a question that is not empty`, http.StatusBadRequest)
		return
	}
	ans := b.Asker.Ask(r.Context(), dialogs.Question{
		Sandbox: sb.Who,
		Bridge:  Route,
		Action:  "asks you (these are the sandbox's own words)",
		Subject: req.Question,
		Details: req.Details,
	})
	resp := Response{Answer: dialogs.Deny, Via: ans.Via, Reason: ans.Reason}
	if ans.Allowed() {
		resp.Answer = dialogs.AllowOnce
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(&resp)
}
