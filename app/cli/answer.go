package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/client"
)

func newAnswerCmd() *cobra.Command {
	var (
		asJSON, remembered, forget, all, watch bool
		fSpec, fFolder, fKey                   string
	)
	c := &cobra.Command{
		Use:   "answer [ID allow|always|deny]",
		Short: "List the questions sandboxes are asking you, and answer them",
		Long: `With no arguments, list the questions waiting for you, with their ids.
With an id and a choice, answer one: allow (this once), always (and from
now on for the same spec in the same folder, where the question offers
it) or deny. A question not answered within two minutes is denied.

--watch prints questions as they come and reads answers ("ID allow") from
standard input; while it runs, questions that nobody would otherwise see
wait for you instead of being refused at once.

--remembered lists the "always" answers; --forget drops them (--all, or
those of --spec, --folder and --key).

This works only outside every sandbox: a program inside cannot reach the
daemon, so it can neither see nor answer any question.`,
		Args: cobra.RangeArgs(0, 2),
		RunE: func(c *cobra.Command, args []string) error {
			modes := 0
			for _, on := range []bool{len(args) > 0, remembered, forget, watch} {
				if on {
					modes++
				}
			}
			if modes > 1 {
				return failf(ExitUsage, "answer: give an answer, --watch, --remembered or --forget, one at a time")
			}
			if len(args) == 1 {
				return failf(ExitUsage, "answer %s: say allow, always or deny", args[0])
			}
			if forget && !all && fSpec == "" && fFolder == "" && fKey == "" {
				return failf(ExitUsage, "answer --forget: say which (--all, or --spec, --folder, --key)")
			}
			cl, err := daemonClient(c.Context(), c.ErrOrStderr())
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			switch {
			case len(args) == 2:
				return answerOne(c.Context(), cl, out, args[0], args[1])
			case remembered:
				return listRemembered(c.Context(), cl, out, asJSON)
			case forget:
				n, err := cl.Forget(c.Context(), &apitype.ForgetRequest{All: all, Spec: fSpec, Folder: fFolder, Key: fKey})
				if err != nil {
					return daemonErr(err)
				}
				fmt.Fprintf(out, "forgot %d remembered answer(s)\n", n)
				return nil
			case watch:
				return watchQuestions(c.Context(), cl, c.InOrStdin(), out)
			}
			return listQuestions(c.Context(), cl, out, asJSON)
		},
	}
	f := c.Flags()
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&watch, "watch", false, "print questions as they come and read answers from standard input")
	f.BoolVar(&remembered, "remembered", false, `list the "always" answers`)
	f.BoolVar(&forget, "forget", false, `forget "always" answers`)
	f.BoolVar(&all, "all", false, "with --forget: every remembered answer")
	f.StringVar(&fSpec, "spec", "", "with --forget: those of the spec `FILE` (\"default\" for the built-in spec)")
	f.StringVar(&fFolder, "folder", "", "with --forget: those of the folder `DIR`")
	f.StringVar(&fKey, "key", "", "with --forget: those allowing `KEY` (as --remembered shows it)")
	return c
}

func answerOne(ctx context.Context, cl *client.Client, out io.Writer, id, choice string) error {
	switch choice {
	case apitype.ChoiceAllow, apitype.ChoiceAlways, apitype.ChoiceDeny:
	default:
		return failf(ExitUsage, "answer %s %q: say allow, always or deny", id, choice)
	}
	if err := cl.Answer(ctx, &apitype.AnswerRequest{ID: id, Choice: choice}); err != nil {
		return daemonErr(err)
	}
	fmt.Fprintf(out, "answered %s: %s\n", id, choice)
	return nil
}

func listQuestions(ctx context.Context, cl *client.Client, out io.Writer, asJSON bool) error {
	qs, err := cl.Questions(ctx)
	if err != nil {
		return daemonErr(err)
	}
	if asJSON {
		return writeJSON(out, qs)
	}
	if len(qs) == 0 {
		fmt.Fprintln(out, "no questions are waiting")
		return nil
	}
	for _, q := range qs {
		printQuestion(out, &q)
	}
	return nil
}

// printQuestion shows one question and how to answer it. Every field is
// plain ASCII already (the daemon cleaned it).
func printQuestion(out io.Writer, q *apitype.Question) {
	left := time.Until(q.Expires).Round(time.Second)
	fmt.Fprintf(out, "--- question %s (denied in %v unless answered)\n%s\n", q.ID, max(left, 0), q.Text)
	choices := "allow|deny"
	if q.Always {
		choices = "allow|always|deny"
	}
	fmt.Fprintf(out, "answer: lnk sandbox answer %s %s\n\n", q.ID, choices)
}

func listRemembered(ctx context.Context, cl *client.Client, out io.Writer, asJSON bool) error {
	l, err := cl.Remembered(ctx)
	if err != nil {
		return daemonErr(err)
	}
	if asJSON {
		if l == nil {
			l = []apitype.Remembered{}
		}
		return writeJSON(out, l)
	}
	if len(l) == 0 {
		fmt.Fprintln(out, `no "always" answers are remembered`)
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SPEC\tFOLDER\tALLOWS\tSINCE")
	for _, r := range l {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Spec, r.Folder, r.Key, r.Since.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

// watchQuestions prints questions as they come and answers those typed
// on in as "ID CHOICE" lines, until in ends or ctx does.
func watchQuestions(ctx context.Context, cl *client.Client, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	mu := &syncWriter{w: out}
	go func() {
		defer cancel()
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 0 {
				continue
			}
			if len(f) != 2 {
				mu.printf("type an id and a choice, e.g. %q\n", "q1a2b3c4d allow")
				continue
			}
			if err := cl.Answer(ctx, &apitype.AnswerRequest{ID: f[0], Choice: f[1]}); err != nil {
				mu.printf("%s: %v\n", f[0], err)
				continue
			}
			mu.printf("answered %s: %s\n", f[0], f[1])
		}
	}()
	fmt.Fprintln(out, "watching for questions; answer with a line \"ID allow|always|deny\"; end with Ctrl-D")
	err := cl.WatchQuestions(ctx, "", func(e *apitype.QuestionEvent) error {
		switch {
		case e.Question != nil:
			mu.do(func(w io.Writer) { printQuestion(w, e.Question) })
		case e.Gone != "":
			mu.printf("question %s is settled\n", e.Gone)
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		return daemonErr(err)
	}
	return nil
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// syncWriter serialises writes from the watcher and the reader of answers.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) printf(format string, args ...any) {
	s.do(func(w io.Writer) { fmt.Fprintf(w, format, args...) })
}

func (s *syncWriter) do(fn func(io.Writer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.w)
}
