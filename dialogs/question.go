package dialogs

import "time"

// Choice is the person's answer to a question.
type Choice string

// The choices a question may offer.
const (
	// AllowOnce allows this one request.
	AllowOnce Choice = "allow"
	// AllowAlways allows this request and every later one with the same
	// Question.Remember key from the same sandbox scope, until forgotten.
	AllowAlways Choice = "always"
	// Deny refuses the request. Closing a dialog, a timeout, and every
	// failure to ask are Deny too.
	Deny Choice = "deny"
)

// ParseChoice reads a choice as a person types it.
func ParseChoice(s string) (Choice, bool) {
	switch s {
	case "allow", "a", "yes", "y", "once":
		return AllowOnce, true
	case "always", "A":
		return AllowAlways, true
	case "deny", "d", "no", "n":
		return Deny, true
	}
	return "", false
}

// Channels an answer can come by, as Answer.Via names them.
const (
	ViaDialog     = "dialog"     // the native dialog
	ViaTerminal   = "terminal"   // the terminal of `lnk sandbox run`, with the code
	ViaQueue      = "queue"      // `lnk sandbox answer` or the tray
	ViaRemembered = "remembered" // an earlier "always"
	ViaTimeout    = "timeout"    // nobody answered in time
	ViaRefused    = "refused"    // nobody could be asked, or the question was refused unasked
	ViaCancelled  = "cancelled"  // the asker went away before an answer
)

// Sandbox says who asks: shown in every question so the person knows which
// of their sandboxes wants what.
type Sandbox struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Command []string `json:"command,omitempty"`
	Folder  string   `json:"folder,omitempty"`
	// Scope is where "always" answers are remembered: the same spec in
	// the same folder is the same sandbox to the person, whatever run
	// it is. "" offers no "always".
	Scope string `json:"scope,omitempty"`
}

// Question is one request made on the person's behalf.
type Question struct {
	// ID is assigned by Ask; callers leave it empty.
	ID      string  `json:"id"`
	Sandbox Sandbox `json:"sandbox"`
	// Bridge names the bridge that asks ("open", "tools", "ask").
	Bridge string `json:"bridge"`
	// Action is what the sandbox wants, as a short phrase:
	// "wants to open a page", "wants to call a tool".
	Action string `json:"action"`
	// Subject is the thing the person must see whole: the URL, the tool
	// and its server, the host. It is never elided, only wrapped.
	Subject string `json:"subject"`
	// Details are further lines (arguments, hints); long ones are elided
	// in the middle.
	Details []string `json:"details,omitempty"`
	// Remember is the key an "always" answer is kept under (for example
	// "tools fs write_file"); "" offers no "always".
	Remember string `json:"remember,omitempty"`
	// Unattended marks a question nobody would see waiting (a tool call
	// from a headless agent): with no dialog, no terminal and no queue
	// watcher it is refused at once, with Hint in the reason.
	Unattended bool `json:"unattended,omitempty"`
	// Hint says what would allow the request without asking; it is part
	// of the refusal when nobody can be asked.
	Hint string `json:"hint,omitempty"`
	// Asked is when Ask received the question.
	Asked time.Time `json:"asked"`
}

// OffersAlways reports whether the question may be answered "always".
func (q *Question) OffersAlways() bool { return q.Remember != "" && q.Sandbox.Scope != "" }

// Answer is the outcome of a question.
type Answer struct {
	Choice Choice `json:"choice"`
	// Via is the channel that gave the answer (Via* constants).
	Via string `json:"via"`
	// Reason explains a Deny that the person did not choose: a timeout, a
	// flood, nobody to ask.
	Reason string `json:"reason,omitempty"`
}

// Allowed reports whether the request may go ahead.
func (a Answer) Allowed() bool { return a.Choice == AllowOnce || a.Choice == AllowAlways }
