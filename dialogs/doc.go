// Package dialogs is the Asker: the one way every bridge asks the person
// before it acts on their behalf. Silence is never yes.
//
// # Channels
//
// [Asker.Ask] shows a [Question] on the first channel that can show it:
//
//  1. A native dialog ([Zenity]): the zenity program on Linux when DISPLAY
//     or WAYLAND_DISPLAY is set and zenity is installed, the system's
//     dialogs on macOS and Windows. One dialog is on the screen at a
//     time; the others wait their turn (and their timeout runs). Its
//     buttons are Allow once, Always for this sandbox (only when the
//     question offers it) and Deny, which is the default button, so a
//     stray Enter allows nothing. Closing the window is Deny. If zenity
//     fails to show, the question moves to the terminal or the queue.
//  2. The terminal of the `lnk sandbox run` that started the sandbox
//     ([Terminal]): the question is printed with a short random code,
//     and the person answers by typing the code and a choice. `run`
//     shows its sandbox's questions one at a time, oldest first. The code
//     goes from the daemon to that `run` process over the control
//     socket, which no process inside a sandbox can reach, so a program
//     inside can print look-alike questions but can never answer one.
//  3. The queue: `lnk sandbox answer` lists the waiting questions and
//     answers them by id, and the tray shows them. Every waiting
//     question, whatever its channel, can be answered from the queue:
//     the first answer wins and the others are withdrawn.
//
// A question marked Unattended (a tool call from a headless agent, which
// nobody would see waiting) is refused at once when there is no dialog,
// no terminal for its sandbox and no queue watcher (the tray, `lnk
// sandbox answer --watch`), with a reason that names what would allow it.
//
// # Deny by default
//
// Two minutes without an answer (Config.Timeout) is Deny, on every
// channel, and so is the request going away. Each sandbox may have 8
// questions waiting and ask 30 per minute (Config.MaxPending,
// MaxPerMinute); beyond that its questions are refused at once, and the
// refusal is recorded like every question and answer (Config.Record).
//
// # Always
//
// "Always for this sandbox" is offered only for questions with a
// Remember key, and is remembered per sandbox scope: the daemon uses the
// spec file and folder, so the same spec in the same folder is the same
// sandbox to the person from one run to the next, while another spec or
// folder asks afresh. Remembered answers are kept in a 0600 JSON file in
// lnk's state folder (never inside any sandbox's reach), listed with
// `lnk sandbox answer --remembered` and revoked with `--forget`.
//
// # Text
//
// Everything a question shows goes through [Clean]: printable ASCII
// only, with control characters, newlines, bidi overrides, zero-width
// and every other non-ASCII character escaped, so nothing can hide or
// reorder what the person reads. The subject (the URL, the tool) is
// wrapped but never elided; other lines are elided in the middle, saying
// how much was left out.
package dialogs
