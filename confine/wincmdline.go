package confine

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxWinCommandLine is CreateProcess's limit, in UTF-16 code units,
// with the terminating NUL.
const maxWinCommandLine = 32767

// WindowsCommandLine joins argv into one command line that
// CommandLineToArgvW (and the C runtime's parser) splits back into argv
// exactly:
//
//   - the program (argv[0]) is read without escapes, so it is quoted
//     when it has a space or a tab and may not hold a double quote;
//   - every other argument is left alone when it has no space, tab,
//     newline, vertical tab or double quote and is not empty; else it is
//     quoted, a run of backslashes before a quote (or the closing quote)
//     is doubled and a quote is escaped with a backslash.
//
// A batch file (.bat, .cmd) is refused when an argument has a character
// cmd.exe would read itself (% ! ^ & | < > ( ) " or a line break):
// cmd.exe re-parses the line by other rules, and no quoting holds there.
func WindowsCommandLine(argv []string) (string, error) {
	if len(argv) == 0 || argv[0] == "" {
		return "", fmt.Errorf("no program to run")
	}
	for _, a := range argv {
		if strings.ContainsRune(a, 0) {
			return "", fmt.Errorf("argument %q has a NUL character, which a Windows command line cannot carry", a)
		}
		if !utf8.ValidString(a) {
			return "", fmt.Errorf("argument %q is not valid UTF-8", a)
		}
	}
	prog := argv[0]
	if strings.ContainsRune(prog, '"') {
		return "", fmt.Errorf("program %q has a double quote, which Windows cannot pass", prog)
	}
	var b strings.Builder
	if strings.ContainsAny(prog, " \t") {
		b.WriteString(`"` + prog + `"`)
	} else {
		b.WriteString(prog)
	}
	if err := CheckBatchArgs(prog, argv[1:]); err != nil {
		return "", err
	}
	for _, a := range argv[1:] {
		b.WriteByte(' ')
		b.WriteString(winQuoteArg(a))
	}
	line := b.String()
	if n := len(utf16.Encode([]rune(line))); n >= maxWinCommandLine {
		return "", fmt.Errorf("the command line is %d UTF-16 units long, over Windows's %d", n, maxWinCommandLine-1)
	}
	return line, nil
}

// CheckBatchArgs refuses arguments cmd.exe would read itself when prog
// (as named, or as found on PATH) is a batch file.
func CheckBatchArgs(prog string, args []string) error {
	if !isBatch(prog) {
		return nil
	}
	for _, a := range args {
		if strings.ContainsAny(a, "%!^&|<>()\"\r\n") {
			return fmt.Errorf("argument %q to the batch file %s has a character cmd.exe would read itself: run the program the batch file runs instead", a, prog)
		}
	}
	return nil
}

func isBatch(prog string) bool {
	l := strings.ToLower(strings.TrimRight(prog, ". "))
	return strings.HasSuffix(l, ".bat") || strings.HasSuffix(l, ".cmd")
}

// winQuoteArg quotes one argument after the program (see above).
func winQuoteArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n\v\"") {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(a); i++ {
		c := a[i]
		switch c {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}
