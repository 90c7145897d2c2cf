package apitype

import "time"

// Routes of the questions the bridges ask the person.
const (
	PathAnswer         = "/v0/answer"
	PathForget         = "/v0/forget"
	PathQuestions      = "/v0/questions"
	PathQuestionsWatch = "/v0/questions/watch"
	PathRemembered     = "/v0/remembered"
)

// Choices of an answer.
const (
	ChoiceAllow  = "allow"  // this once
	ChoiceAlways = "always" // and remember it for this sandbox's spec and folder
	ChoiceDeny   = "deny"
)

// Question is a question waiting for the person.
type Question struct {
	ID          string    `json:"id"`
	SandboxID   string    `json:"sandbox"`
	SandboxName string    `json:"sandbox_name"`
	Bridge      string    `json:"bridge"`  // open, tools, ask
	Action      string    `json:"action"`  // what the sandbox wants
	Subject     string    `json:"subject"` // the thing it concerns, whole
	Text        string    `json:"text"`    // the question as shown, plain ASCII
	Via         string    `json:"via"`     // dialog, terminal or queue
	Always      bool      `json:"always"`  // "always" may be answered
	Asked       time.Time `json:"asked"`
	Expires     time.Time `json:"expires"` // when it becomes a deny
	// Code is what a terminal answer must carry; it is sent only to the
	// terminal of the question's own sandbox.
	Code string `json:"code,omitempty"`
}

// QuestionEvent is one line of the questions stream: a question that
// appeared, one that is gone (answered, timed out, withdrawn), or an
// error that ends the stream.
type QuestionEvent struct {
	// Ready is the first event: the watcher is attached, and every
	// question from now on reaches it.
	Ready    bool      `json:"ready,omitempty"`
	Question *Question `json:"question,omitempty"`
	Gone     string    `json:"gone,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// AnswerRequest answers a waiting question. A terminal's answer carries
// the code it was shown.
type AnswerRequest struct {
	ID       string `json:"id"`
	Choice   string `json:"choice"`
	Terminal bool   `json:"terminal,omitempty"`
	Code     string `json:"code,omitempty"`
}

// Remembered is an "always" answer.
type Remembered struct {
	Spec   string    `json:"spec"`
	Folder string    `json:"folder"`
	Key    string    `json:"key"` // what is allowed, e.g. "tools fs write_file"
	Since  time.Time `json:"since"`
}

// ForgetRequest drops remembered answers: every one with All, else those
// matching Spec, Folder and Key (an empty field matches any).
type ForgetRequest struct {
	All    bool   `json:"all,omitempty"`
	Spec   string `json:"spec,omitempty"`
	Folder string `json:"folder,omitempty"`
	Key    string `json:"key,omitempty"`
}

// ForgetResponse says how many answers were forgotten.
type ForgetResponse struct {
	Forgotten int `json:"forgotten"`
}
